"""What an agent did to files, recognised from tool calls and from text actions.

Used by the extractive summariser (``goosectx.compaction.extractive``). Agents record file work
in many shapes; this module knows them:

* tool calls: ``text_editor`` / ``str_replace_editor`` (``command`` + ``path``), Claude Code
  ``Edit`` / ``Write`` / ``MultiEdit``, gemini-cli ``write_file`` / ``replace``, SWE-agent
  ``create`` / ``edit`` / ``insert`` (the last two act on the open file), ``apply_patch`` and any
  argument holding ``*** Update File:`` patch headers, shell commands (``rm``, ``sed -i``,
  ``touch``, ``tee``, ``> file`` redirection);
* text actions: SWE-agent XML ``<function=…><parameter=…>`` and plain fenced commands, aider
  edit blocks (a path line followed by a fence), ``*** Update File:`` headers, and the console
  markers of Claude Code (``⏺ Update(path)``) and Gemini CLI (``✔  Edit path``).

All functions are pure.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

WRITE_VERBS = frozenset({"created", "written", "edited", "deleted"})
"""Verbs that change a file (the summary must keep every path that has one)."""


@dataclass(frozen=True, slots=True)
class FileAction:
    """One thing done to one file.

    Attributes:
        path: The path as the transcript named it.
        verb: ``read``, ``created``, ``written``, ``edited`` or ``deleted``.
        code: New code the action wrote, verbatim (may be empty).
    """

    path: str
    verb: str
    code: str = ""


_PATH_KEYS = ("path", "file_path", "filename", "file", "target_file", "absolute_path",
              "notebook_path", "filePath")
_EDITOR_TOOLS = {"text_editor", "str_replace_editor", "str_replace_based_edit_tool"}
_EDITOR_VERBS = {"view": "read", "create": "created", "write": "written",
                 "str_replace": "edited", "insert": "edited", "undo_edit": "edited",
                 "edit": "edited", "append": "edited"}
_EDIT_TOOLS = {"edit", "multiedit", "replace", "edit_file", "str_replace", "search_replace",
               "apply_diff", "notebookedit", "insert", "multi_edit", "patch_file"}
_WRITE_TOOLS = {"write", "write_file", "writefile", "create_file", "write_to_file"}
_CREATE_TOOLS = {"create"}
_READ_TOOLS = {"read", "read_file", "readfile", "view", "open", "cat", "view_file",
               "read_many_files", "readmanyfiles"}
_SHELL_TOOLS = {"shell", "bash", "exec", "execute_bash", "run_shell_command", "exec_command",
                "local_shell", "terminal", "run_command", "command"}
_CODE_KEYS = ("new_string", "new_str", "content", "file_text", "text", "replace", "code")

_PATCH_HEADER = re.compile(
    r"^\*\*\* (Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)
_PATCH_VERBS = {"Update": "edited", "Add": "created", "Delete": "deleted"}
_OPEN_FILE = re.compile(r"\(Open file: ([^)\n]+)\)|^\[File: (\S+) \(\d+ lines total\)\]", re.M)
_XML_FUNCTION = re.compile(r"<function=([\w.-]+)>(.*?)(?:</function>|$)", re.S)
_XML_PARAM = re.compile(r"<parameter=([\w.-]+)>(.*?)(?:</parameter>|(?=<parameter=)|$)", re.S)
_FENCE = re.compile(r"^```[ \t]*(\w*)[ \t]*\n(.*?)^```", re.S | re.M)
_AIDER_BLOCK = re.compile(r"^[ \t]*[`*]*([^\s`*:]+)[`*:]*[ \t]*\n(?:```|~~~|<source>)[^\n]*\n(.*?)"
                          r"^(?:```|~~~|</source>)", re.S | re.M)
_PATHLIKE = re.compile(r"[\w.~@/\\+-]*(?:[/\\][\w.~@+-]+|\.[A-Za-z]\w*)")
_CLAUDE_CONSOLE = re.compile(
    r"^⏺ (Update|Write|Edit|MultiEdit|Create|NotebookEdit|Read)\(([^)\n]+)\)", re.M)
_GEMINI_CONSOLE = re.compile(
    r"[✔x✘-]\s{1,3}(Edit|WriteFile|ReadFile)\s+(?:Writing to |No file changes to )?"
    r"(?:\.\.\.)?([^\s:]+)", re.M)
_CONSOLE_VERBS = {"Update": "edited", "Edit": "edited", "MultiEdit": "edited",
                  "NotebookEdit": "edited", "Write": "written", "WriteFile": "written",
                  "Create": "created", "Read": "read", "ReadFile": "read"}
_ERROR_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|[\w.]*(?:Error|Exception)\b(?::|$)|"
    r"error(?:\[\w+\])?:|ERROR\b|FAILED\b|fatal:|npm ERR!|panic:)"
    r"|command not found|No such file or directory|Permission denied|"
    r"exit(?:ed with)? code:? [1-9]|\b\d+ failed\b|not found\. Available tools",
    re.M | re.I)
_EXCEPTION_LINE = re.compile(r"^\s*[\w.]*(?:Error|Exception)\b:.*$", re.M)


def normalize_tool_name(name: str) -> str:
    """Lower-case a tool name and drop extension prefixes (``developer__``, ``mcp__x__``)."""
    base = name.rsplit("__", 1)[-1].rsplit(".", 1)[-1]
    return base.lower()


def _path_of(args: Mapping[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _code_of(args: Mapping[str, Any]) -> str:
    for key in _CODE_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    edits = args.get("edits")
    if isinstance(edits, list) and edits and isinstance(edits[-1], dict):
        return _code_of(edits[-1])
    return ""


def patch_actions(text: str) -> list[FileAction]:
    """Files named by ``*** Update/Add/Delete File:`` and ``*** Move to:`` patch headers."""
    out = []
    for m in _PATCH_HEADER.finditer(text):
        if m.group(3):
            out.append(FileAction(m.group(3), "written"))
        else:
            out.append(FileAction(m.group(2), _PATCH_VERBS[m.group(1)]))
    return out


def _command_text(args: Mapping[str, Any]) -> str:
    command = args.get("command", args.get("cmd", args.get("commands")))
    if isinstance(command, list):
        parts = [str(c) for c in command]
        if len(parts) >= 3 and parts[0].endswith(("bash", "sh", "zsh")) and parts[1] in (
                "-lc", "-c"):
            return parts[2]
        return " ".join(shlex.quote(p) for p in parts)
    return command if isinstance(command, str) else ""


def _without_heredocs(script: str) -> list[str]:
    """The lines of a shell script with here-document bodies removed."""
    lines: list[str] = []
    terminator: str | None = None
    for line in script.splitlines():
        if terminator is not None:
            if line.strip() == terminator:
                terminator = None
            continue
        lines.append(line)
        m = re.search(r"<<-?\s*['\"]?([\w.-]+)['\"]?", line)
        if m:
            terminator = m.group(1)
    return lines


def shell_actions(script: str) -> list[FileAction]:
    """Files a shell command changes: ``rm``, ``sed -i``, ``touch``, ``tee``, ``>``/``>>``.

    Also any patch headers inside (``applypatch <<'PATCH' …``).
    """
    out = patch_actions(script)
    for line in _without_heredocs(script):
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            continue
        out += _simple_command_actions(tokens)
    return out


def _simple_command_actions(tokens: list[str]) -> list[FileAction]:
    out: list[FileAction] = []
    command: list[str] = []
    i = 0
    while i <= len(tokens):
        tok = tokens[i] if i < len(tokens) else ";"
        if tok in (">", ">>", ">|") and i + 1 < len(tokens):
            target = tokens[i + 1]
            if not target.startswith(("/dev/", "&")) and not (command and command[-1].isdigit()
                                                              and command[-1] != "1"):
                out.append(FileAction(target, "written"))
            if command and command[-1].isdigit():
                command.pop()
            i += 2
            continue
        if tok and set(tok) <= set(";&|<>"):
            out += _command_actions(command)
            command = []
        else:
            command.append(tok)
        i += 1
    return out


def _command_actions(argv: list[str]) -> list[FileAction]:
    while argv and ("=" in argv[0] and not argv[0].startswith("-") or argv[0] in ("sudo",)):
        argv = argv[1:]
    if not argv:
        return []
    prog, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    operands = [a for a in args if not a.startswith("-")]
    if prog == "rm":
        return [FileAction(a, "deleted") for a in operands]
    if prog == "touch":
        return [FileAction(a, "created") for a in operands]
    if prog == "tee":
        return [FileAction(a, "written") for a in operands]
    if prog == "sed" and any(a.startswith("-i") or a == "--in-place" for a in args):
        has_script_flag = any(a in ("-e", "--expression") for a in args)
        files = operands if has_script_flag else operands[1:]
        return [FileAction(a, "edited") for a in files]
    return []


def actions_from_tool_call(
    name: str, args: Mapping[str, Any] | None, *, open_file: str | None = None
) -> list[FileAction]:
    """File actions of one tool call.

    Args:
        name: The tool name as recorded (prefixes like ``developer__`` are ignored).
        args: Parsed arguments (``None`` when they did not parse).
        open_file: The file SWE-agent's editor has open (for ``edit``/``insert`` without path).

    Returns:
        The actions in the order the call performs them (possibly empty).
    """
    if not args:
        return []
    tool = normalize_tool_name(name)
    path = _path_of(args)
    code = _code_of(args)
    out: list[FileAction] = []
    for value in args.values():
        if isinstance(value, str) and "*** " in value:
            out += patch_actions(value)
    if tool in _EDITOR_TOOLS:
        verb = _EDITOR_VERBS.get(str(args.get("command", "")), "edited")
        if path:
            out.append(FileAction(path, verb, "" if verb == "read" else code))
    elif tool in _CREATE_TOOLS:
        if path:
            out.append(FileAction(path, "created", code))
    elif tool in _EDIT_TOOLS:
        target = path or open_file
        if target:
            out.append(FileAction(target, "edited", code))
    elif tool in _WRITE_TOOLS:
        if path:
            out.append(FileAction(path, "written", code))
    elif tool in _READ_TOOLS:
        paths = args.get("paths")
        if isinstance(paths, list):
            out += [FileAction(str(p), "read") for p in paths if isinstance(p, str)]
        elif path:
            out.append(FileAction(path, "read"))
    elif tool in _SHELL_TOOLS or "command" in args or "cmd" in args:
        out += [a for a in shell_actions(_command_text(args)) if a not in out]
    return out


def open_file_in(text: str) -> str | None:
    """The file SWE-agent reports open (``(Open file: …)`` or ``[File: … (N lines total)]``)."""
    found = None
    for m in _OPEN_FILE.finditer(text):
        candidate = (m.group(1) or m.group(2) or "").strip()
        if candidate and candidate != "n/a":
            found = candidate
    return found


def _swe_command_actions(line: str, open_file: str | None) -> list[FileAction]:
    words = line.split()
    if not words:
        return []
    head = words[0]
    if head == "create" and len(words) > 1:
        return [FileAction(words[1].strip("\"'"), "created")]
    if head in ("edit", "insert") and open_file:
        return [FileAction(open_file, "edited")]
    if head == "open" and len(words) > 1:
        return [FileAction(words[1].strip("\"'"), "read")]
    if head == "str_replace_editor" and len(words) > 2:
        return [FileAction(words[2], _EDITOR_VERBS.get(words[1], "edited"))]
    return shell_actions(line)


def actions_from_text(text: str, *, open_file: str | None = None) -> list[FileAction]:
    """File actions written as text in an assistant message (see module docstring).

    Args:
        text: The assistant's text.
        open_file: The file SWE-agent's editor has open, for ``edit N:M`` commands.
    """
    out: list[FileAction] = []
    if "<function=" in text:
        for fm in _XML_FUNCTION.finditer(text):
            params = {k: v.strip("\n") for k, v in _XML_PARAM.findall(fm.group(2))}
            out += actions_from_tool_call(fm.group(1), params, open_file=open_file)
    for fence in _FENCE.finditer(text):
        if fence.group(1) == "":
            body = fence.group(2)
            first = body.split("\n", 1)[0].strip()
            if "<<" in first:
                out += shell_actions(body)
            else:
                out += _swe_command_actions(first, open_file)
    for block in _AIDER_BLOCK.finditer(text):
        path = block.group(1)
        if _PATHLIKE.fullmatch(path) and not path.startswith(("http", "//")):
            verb = "edited" if "<<<<<<< SEARCH" in block.group(2) else "written"
            out.append(FileAction(path, verb, block.group(2)))
    if "*** " in text:
        out += patch_actions(text)
    if "⏺" in text:
        out += [FileAction(m.group(2).strip(), _CONSOLE_VERBS[m.group(1)])
                for m in _CLAUDE_CONSOLE.finditer(text)]
    if "✔" in text or "│ -" in text:
        out += [FileAction(m.group(2).strip(), _CONSOLE_VERBS[m.group(1)])
                for m in _GEMINI_CONSOLE.finditer(text)]
    return out


def error_excerpt(text: str) -> str | None:
    """The telling line of an error in tool output, or ``None`` when it does not look failed.

    Prefers the last ``SomethingError: message`` line (the end of a traceback), else the first
    line that matches a common failure pattern.
    """
    sample = text if len(text) <= 200_000 else text[:100_000] + "\n" + text[-100_000:]
    first = _ERROR_LINE.search(sample)
    if first is None:
        return None
    exceptions = _EXCEPTION_LINE.findall(sample)
    if exceptions:
        return exceptions[-1].strip()
    start = sample.rfind("\n", 0, first.start()) + 1
    end = sample.find("\n", first.end())
    return sample[start:end if end != -1 else len(sample)].strip()


def describe_call(name: str, args: Mapping[str, Any] | None, *, limit_chars: int = 100) -> str:
    """A short label for a tool call: the tool name and its main argument.

    Example: ``shell `pytest -q```, ``str_replace_editor str_replace `/testbed/a.py```.
    """
    label = name
    if args:
        command = _command_text(args) if normalize_tool_name(name) not in _EDITOR_TOOLS else ""
        if normalize_tool_name(name) in _EDITOR_TOOLS and args.get("command"):
            label += f" {args['command']}"
        main = command or _path_of(args) or next(
            (str(args[k]) for k in ("pattern", "query", "url", "intent", "search", "source")
             if args.get(k)), "")
        main = " ".join(main.split())
        if main:
            if len(main) > limit_chars:
                main = main[: limit_chars - 1] + "…"
            label += f" `{main}`"
    return label
