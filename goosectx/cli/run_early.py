"""``run --resume`` / ``--continue``: the task saved while the model client loads."""

from __future__ import annotations

import threading
from typing import Any

from goosectx.cli.common import OpenSession
from goosectx.conversation import Message
from goosectx.errors import GoosectxError
from goosectx.events import MessageCompleted
from goosectx.recorder import SessionRecorder


class EarlyTask:
    """``run --resume`` / ``--continue``: the task is saved while the model client loads.

    The credentials check (litellm's import: seconds) runs on a thread from the start, so a
    process killed meanwhile still has the task in the session. A failed check removes the
    task again (one transaction) and releases the session: a missing key changes no data.
    """

    def __init__(self, provider: Any) -> None:
        self.message: Message | None = None
        """The task as saved (``None``: not saved early, e.g. it names ``@`` files)."""
        self.closed = False
        """True once :meth:`save` failed and closed the session."""
        self._error: GoosectxError | None = None
        self._bug: BaseException | None = None
        self._thread = threading.Thread(target=self._check, args=(provider,), daemon=True,
                                        name="goosectx-credentials")
        self._thread.start()

    def _check(self, provider: Any) -> None:
        try:
            provider.check_credentials()
        except GoosectxError as exc:
            self._error = exc
        except BaseException as exc:  # noqa: BLE001 - re-raised on the main thread
            self._bug = exc

    def failure(self) -> GoosectxError | None:
        """Wait for the credentials check; its error, or ``None`` (a bug is raised)."""
        self._thread.join()
        if self._bug is not None:
            raise self._bug
        return self._error

    def checked_elsewhere(self) -> None:
        """Another model is used after all: the first one's check no longer matters.

        That is the session's own model (``/model``), its key checked; a bug in the first
        check is still raised.
        """
        self.failure()
        self._error = None

    def save(self, opened: OpenSession, task: str, *, whole: bool = True) -> None:
        """Save ``task`` as the user's message (unless it names ``@`` files), then wait.

        Raises:
            GoosectxError: the check failed (the task is removed again and the session's lock
                released) or the store did (the lock released).
        """
        try:
            recorder = SessionRecorder(opened.store, opened.session)
            # reading @ files, or capping piped data (not ``whole``), needs the context limit
            if whole and "@" not in task:
                message = Message.user(task)
                opened.session.conversation.append(message)
                recorder.record(MessageCompleted(message))
                self.message = message
            error = self.failure()
            if error is not None:
                if self.message is not None:
                    opened.session.conversation.messages.remove(self.message)
                    recorder.retract(self.message)
                raise error
        except BaseException:
            self.closed = True
            opened.close()
            raise
