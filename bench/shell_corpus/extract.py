"""Build commands.jsonl: every shell command agents ran in the transcript corpus (and diary).

Usage: extract.py [REPO] [--out DIR] [--diary PATH]
  REPO   a goosectx checkout whose importers read the transcripts (default: this checkout)
  DIR    where commands.jsonl goes (default ~/.cache/goosectx-bench/shell-corpus)
  PATH   a clone of github.com/palimondo/BookMinder (a bare one will do): its diary days
         (claude-dev-log-diary/day-*.md) are read too; skipped, saying so, when absent
The corpus is $GOOSECTX_CORPUS/raw (default ../shared/corpus/raw beside the checkout), as the
tests find it; probes.txt beside this file adds hand-written probes. Prints counts per source.
Each line: {"source", "command"[, "truncated": true when the console copy cut it ("…")]}.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]
DEFAULT_OUT = Path.home() / ".cache" / "goosectx-bench" / "shell-corpus"
SHELL_TOOLS = {"shell", "bash", "exec_command", "run_shell_command", "execute_bash",
               "run_terminal_cmd", "developer__shell", "shell_command"}
XML_BASH = re.compile(r"<function=bash>\s*<parameter=command>(.*?)</parameter>", re.S)
FENCE = re.compile(r"```[a-z]*\n(.*?)\n```", re.S)
GEMINI_PANEL = re.compile(r"^ ?│ (?:✔|✗|x|-|o|\?|⊷) +Shell (.*?)\s*│?\s*$")
COST = re.compile(r"\s{2,}Cost: \$[\d.]+ \([^()]*\)?\s*$")
PANEL_BODY = re.compile(r"^ ?│ {4}(.*?)\s*│\s*$|^ ?│\s*│\s*$")
DESC = re.compile(r" \((?:[^()]|\([^()]*\))*\)$")


def shell_string(args: dict | None) -> str | None:
    """The command line of a shell tool call's arguments, or None."""
    if not args:
        return None
    cmd = args.get("command", args.get("cmd"))
    if isinstance(cmd, list):
        if len(cmd) == 3 and cmd[0] in ("bash", "sh", "zsh") and cmd[1] in ("-lc", "-c"):
            return str(cmd[2])
        return shlex.join(str(c) for c in cmd)
    return cmd if isinstance(cmd, str) else None


def open_quote(text: str) -> bool:
    """Whether ``text`` ends inside a '…' or "…" quote (bash's rules, roughly)."""
    quote = None
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote is None and ch in "'\"":
            quote = ch
        elif ch == quote:
            quote = None
    return quote is not None


def console_commands(text: str) -> list[str]:
    """The commands of a console copy: Claude Code's ``⏺ Bash(…)``, Gemini CLI's Shell panels."""
    out: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("⏺ Bash("):
            parts = [line[len("⏺ Bash("):]]
            j = i + 1
            while (j < len(lines) and lines[j].startswith("      ")
                   and not lines[j].lstrip().startswith("⎿")):
                parts.append(lines[j][6:])
                j += 1
            if open_quote("\n".join(parts)) and not parts[-1].endswith("…"):
                # some copies show a multi-line command unindented: read on to its closing quote
                more = parts[:]
                while j < len(lines) and j - i < 80 and not lines[j].startswith(("⏺", "  ⎿")):
                    more.append(lines[j])
                    j += 1
                    if not open_quote("\n".join(more)) and more[-1].endswith(")"):
                        parts = more
                        break
            parts[0] = COST.sub("", parts[0])  # older Claude Code: Bash(CMD)…   Cost: $x (ys)
            if parts[-1].startswith("… ") and "(ctrl+r to expand)" in parts[-1]:
                parts[-1] = "…"  # the fold marker: the rest of the command was not shown
                if len(parts) > 1:
                    parts[-2:] = [parts[-2].rstrip("…") + "…"]
            cmd = "\n".join(parts)
            if cmd.endswith("…)"):
                cmd = cmd[:-1]
            elif cmd.endswith(")…"):  # Claude Code's "running" form: Bash(CMD)…
                cmd = cmd[:-2]
            elif cmd.endswith(")"):
                cmd = cmd[:-1]
            out.append(cmd)
            continue
        m = GEMINI_PANEL.match(line)
        if m:
            cmd = m.group(1).rstrip()
            if not cmd.endswith("…"):
                cmd = DESC.sub("", cmd)
            if open_quote(cmd):  # a multi-line command: its lines follow in the panel
                more = [m.group(1).rstrip()]
                for nxt in lines[i + 1:i + 40]:
                    body = PANEL_BODY.match(nxt)
                    if body is None:
                        break
                    more.append((body.group(1) or "").rstrip())
                    joined = DESC.sub("", "\n".join(more))
                    if not open_quote(joined) or more[-1].endswith("…"):  # closed, or cut
                        cmd = joined
                        break
            out.append(cmd)
    return out


def commands_of(path: Path) -> list[str]:
    """The shell commands of one transcript, in order (imported with goosectx's importers)."""
    from goosectx.importers import load_sessions
    from goosectx.parts import TextContent, ToolRequest

    try:
        sessions = load_sessions(path, working_dir=path.parent)
    except Exception as exc:  # a diary page that is not a transcript (notes)
        # goosectx's console importer needs "> " prompts in column 1; newer Gemini CLI copies
        # box them ("│  > …  │"). Read the panels from the raw text then, said on stderr.
        print(f"importer refused {path.name} ({str(exc).splitlines()[0][:80]}); "
              "reading its panels as raw text", file=sys.stderr)
        return [c for c in console_commands(path.read_text(errors="replace")) if c.strip()]
    out: list[str] = []
    for s in sessions:
        source = s.metadata.get("source")
        for m in s.conversation.messages:
            for p in m.content:
                if isinstance(p, ToolRequest) and p.name.lower() in SHELL_TOOLS:
                    cmd = shell_string(p.arguments)
                    if cmd:
                        out.append(cmd)
                elif isinstance(p, TextContent) and m.role == "assistant":
                    if source == "console":
                        out += console_commands(p.text)
                    elif source == "swe-agent":
                        found = XML_BASH.findall(p.text)
                        if found:
                            out += [c.strip() for c in found]
                        elif "<function=" not in p.text:
                            fences = FENCE.findall(p.text)
                            if fences:  # text-action trajectory: the last block is the action
                                out.append(fences[-1].strip())
    return [c for c in out if c.strip()]


def corpus_dir() -> Path:
    env = os.environ.get("GOOSECTX_CORPUS")
    return Path(env) if env else CHECKOUT.parent / "shared" / "corpus"


def diary_days(repo: Path, out: Path) -> list[Path]:
    """Copy the diary's day-NNN.md pages from the git repository ``repo`` into ``out``."""
    def git(*args: str) -> bytes:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                              check=True).stdout

    names = git("ls-tree", "--name-only", "HEAD", "claude-dev-log-diary/").decode().split()
    out.mkdir(parents=True, exist_ok=True)
    days = []
    for name in sorted(n for n in names if re.search(r"/day-\d+\.md$", n)):
        day = out / Path(name).name
        day.write_bytes(git("show", "HEAD:" + name))
        days.append(day)
    return days


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path, default=CHECKOUT)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--diary", type=Path, help="a BookMinder clone (optional)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.repo.resolve()))
    raw = corpus_dir() / "raw"
    if not raw.is_dir():
        sys.exit(f"corpus not found at {raw} (set GOOSECTX_CORPUS)")

    seen: set[str] = set()
    rows: list[dict[str, str | bool]] = []
    counts: dict[str, int] = {}

    def add(source: str, cmds: list[str]) -> None:
        for c in cmds:
            if c not in seen:
                seen.add(c)
                row: dict[str, str | bool] = {"source": source, "command": c}
                if "…" in c:  # the terminal cut or folded it: part of it is unknown
                    row["truncated"] = True
                rows.append(row)
                counts[source] = counts.get(source, 0) + 1

    for p in sorted(raw.rglob("*")):
        if p.is_file():
            add("corpus:" + p.name, commands_of(p))
    if args.diary and args.diary.exists():
        for day in diary_days(args.diary, args.out / "diary"):
            add("diary:" + day.name, commands_of(day))
    else:
        where = f"{args.diary} not found" if args.diary else "no --diary given"
        print(f"diary: {where}; diary days skipped", file=sys.stderr)
    probes = (HERE / "probes.txt").read_text(encoding="utf-8").splitlines()
    add("probe", [ln for ln in probes if ln.strip() and not ln.startswith("#")])
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = args.out / "commands.jsonl.tmp"
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    tmp.replace(args.out / "commands.jsonl")
    for k, v in counts.items():
        print(f"{v:5d}  {k}")
    print(f"{len(rows):5d}  total (de-duplicated), in {args.out / 'commands.jsonl'}")


if __name__ == "__main__":
    main()
