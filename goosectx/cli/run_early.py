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

    The credentials check (litellm's import: seconds) runs on a thread from :meth:`start`
    (called once the session is locked, so a session in use is refused at once), so a process
    killed meanwhile still has the task in the session, and the session loads meanwhile. A
    failed check removes the task again (one transaction) and releases the session: a missing
    key changes no data. Every way out of a run that started it waits for it
    (:meth:`failure` or :meth:`settle`).
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

    def start(self) -> None:
        """Start the check on its thread (once)."""
        if self._thread.ident is None:
            self._thread.start()

    def _check(self, provider: Any) -> None:
        try:
            provider.check_credentials()
        except GoosectxError as exc:
            self._error = exc
        except BaseException as exc:  # noqa: BLE001 - re-raised on the main thread
            self._bug = exc

    def failure(self) -> GoosectxError | None:
        """Wait for the credentials check (started now if it was not); its error, or ``None``.

        A bug in the check is raised.
        """
        self.start()
        self._thread.join()
        if self._bug is not None:
            raise self._bug
        return self._error

    def settle(self) -> None:
        """Wait for the check to end, its outcome dropped: the run fails for another reason.

        Every way out of a run that started the check goes through here or
        :meth:`failure`, so no check is left importing litellm after the command returns.
        """
        if self._thread.ident is not None:
            self._thread.join()

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
