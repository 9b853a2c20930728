r"""Inline code that runs a command or code it computes, by interpreter, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:func:`goosectx.shell_runners.code_runs` reads an interpreter's inline code. Beyond the calls
every language shares (``system``, ``exec``, backticks …), each language has its own ways
to start a program or to run code it builds at run time, which the rules cannot read: perl's
piped ``open`` (``open(F, "|rm x")``, ``open my $f, "-|", "rm", "x"``, ``IO::File``),
``IO::Pipe``, ``readpipe``, a string ``eval``, ``s///ee``, ``do FILE`` (outside a string
literal: :func:`blank_strings`) and a ``require`` of a file; node's ``eval`` or ``Function``
in any spelling JavaScript allows (so any mention of them, of ``constructor``, ``Reflect`` or
``globalThis``, a ``\u`` escape outside a string literal), the ``vm``
module, a ``require``/``import()`` of a name it computes and a call of a member it names by a
computed key (``f[k](…)``); python's ``eval``, ``compile``, an ``__import__`` of a computed
name, ``builtins``, a ``getattr`` of a name not written out, ``os.posix_spawn``,
asyncio's ``create_subprocess_*`` and ``pydoc`` (its ``pipepager``/``tempfilepager`` run a
command line); ruby's ``open("|cmd")``; ruby's, php's and lua's
``eval``/``load``; in any code but perl's (awk's too) a pipe to a string (``print |
"sort"``). Code that reaches a function by a name it builds, or looks one up where a
pattern cannot follow, is read the same way, as code that may run any program: a call of a
member by a computed key (``t[k](…)``); python's ``vars()``, ``__dict__``, ``sys.modules``,
``__getattribute__``, frames, ``pickle``/``marshal``/``ctypes``, the modules that run code
strings (``timeit``, ``cProfile``, ``code``, ``pdb`` …); lua's ``_G``, ``_ENV``,
``os[…]``, a ``..`` in a subscript, ``debug``, ``package``; php's ``("sys"."tem")(…)``,
``$$x``, ``->$m``, ``->{…}`` and the functions that take a callable by name
(``call_user_func``, ``array_map`` …); ruby's ``method``, ``__send__``, ``const_get``,
``to_proc``, ``open`` of a computed name; perl's ``&{"…"}``, ``&$f``, ``->$m``, ``can``, the
symbol table; node's ``Module._load``, ``createRequire``; a ``require``/``load`` of a stream
(``/dev/stdin``). :func:`runs_in_language` finds them, so a shell deny or ask rule asks about
the command. Every pattern is linear in the code's length (no backtracking over nested
repeats). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

_LITERAL = r"""\s*(?:"[\w@./:-]+"|'[\w@./:-]+'|`[\w@./:-]+`)\s*\)"""
"""A module name written out (``require("fs")``): a call of it loads what it names."""
_FAMILY = re.compile(r"(ipython|python|pypy|node|nodejs|bun|perl|ruby|php|lua|luajit|Rscript|R)"
                     r"[\d.]*[a-z]?")
_MODULE = r"(?!(?:q[qwx]?|qr|m|s|tr|y)\b)[A-Za-z_][\w:]*|v?[\d._]+"
"""What perl's ``require`` loads by name (``require JSON``, ``require 5.010``): no file."""
_KEYED_CALL = r"\[(?!\s*(?:\d+|\"[\w.-]*\"|'[\w.-]*')\s*\])[^\][]*\]\s*[(\"'{]"
"""A call of a member named by a key the code computes (``t[k](…)``, lua's ``t[k]"…"``)."""
_STREAM_LOAD = r"\b(?:require|load|require_relative)\b\s*\(?\s*[\"'`]/(?:dev|proc)/"
"""A load of a stream as code (``require("/dev/stdin")``): the code comes from a pipe."""
_RUNS = {
    "perl": re.compile(
        r"\beval\b(?!\s*\{)|\breadpipe\b|\bIPC::|\bIO::Pipe\b|\bsyscall\b"
        r"|(?<!&)&[{$]|->\s*\$|\bcan\s*\(|->\s*can\b|\*\s*\{|::\s*\{|\bmain::(?!\w)|CORE::GLOBAL"
        r"|[/|#!}]\s*[msixpodualngcr]*e[msixpodualngcr]*e(?![\w/|#!}])"
        rf"|\brequire\b(?!\s*(?:{_MODULE})\s*(?:[;)}}]|$))"),
    "node": re.compile(
        r"\beval\b|\bFunction\b|constructor|\bReflect\b|\bglobal(?:This)?\b"
        r"|\bWorker\b|process\.(?:binding|dlopen)|\b_load\b|\bcreateRequire\b"
        r"|[\"'`](?:node:)?(?:vm|worker_threads|cluster|module|inspector)[\"'`]"
        rf"|{_STREAM_LOAD}"
        rf"|\b(?:require|import)\s*\((?!{_LITERAL})"
        r"|\[(?!\s*(?:\d+|\"[\w.-]*\"|'[\w.-]*')\s*\])[^\][]*\]\s*\("),
    "python": re.compile(
        r"(?<![\w.])(?:eval|compile)\s*\(|__import__\b(?!\s*\(\s*[\"']\w+[\"']\s*\))"
        r"|__builtins__|\bbuiltins\b|\bglobals\s*\(\s*\)\s*\["
        r"|\bgetattr\b(?!\s*\(\s*[\w.]+\s*,\s*(?:\"\w*\"|'\w*')\s*[,)])"
        r"|posix_spawn|create_subprocess_|\bimport_module\b(?!\s*\(\s*[\"'][\w.]+[\"']\s*\))"
        r"|\bvars\s*\(|__dict__|__getattribute__|__subclasses__|__globals__|\blocals\s*\("
        r"|\bsys\s*\.\s*modules\b|\b(?:methodcaller|attrgetter|breakpoint)\b|__reduce"
        r"|\b(?:pickle|marshal|shelve|dill|ctypes|cffi|runpy|_posixsubprocess|fork_exec)\b"
        r"|\bf_(?:globals|builtins|locals)\b|_getframe|\bunsafe_load|\byaml\s*\.\s*load\b"
        r"|\b(?:SourceFileLoader|spec_from_file_location|load_source)\b"
        r"|(?<![\w.])(?:cProfile|profile|timeit|doctest|codeop|code|pdb|trace)\b(?=\s*\.|\s+import)"
        rf"|{_KEYED_CALL}"),
    "ruby": re.compile(r"\b(?:instance_|class_|module_)?eval\b|\b(?:public_|__)?send(?:__)?\b"
                       r"|[\"']\s*\||\bmethod\b|\bconst_get\b|\binstance_method\b|\bsyscall\b"
                       r"|\bdefine_method\b|\bFiddle\b|\bMarshal\s*\.\s*load|\bObjectSpace\b"
                       rf"|\bto_proc\b|\bbinding\b|{_STREAM_LOAD}"
                       r"|(?<![\w.])(?:Kernel\s*\.\s*|URI\s*\.\s*)?open\b(?!\s*\(?\s*[\"'])"
                       r"|\bIO\s*\.\s*\w+\b(?!\s*\(?\s*[\"'])|[\"']\s*#\{"),  # open(x)
    "php": re.compile(r"\beval\s*\(|\bassert\s*\(|create_function|pcntl_exec|\$\w+\s*\("
                      r"|[)\]}]\s*\(|\$\$|\$\{|::\s*\$|->\s*\$|\bnew\s+\$|\bFFI\b|\bdl\s*\("
                      r"|\bcall_user_func|\barray_(?:map|filter|walk|reduce)|\bu[ak]?sort\b|_callback"
                      r"|\bregister_\w+_function|\bob_start|\biterator_apply|\bforward_static_call"
                      r"|\bReflection|\bfromCallable|\bClosure\b|\b(?:mail|putenv)\s*\("
                      r"|\b(?:include|require)(?:_once)?\b|\b(?:data|php|expect|phar):"
                      r"|->\s*\{|\bset_\w+_handler|autoload|\bunserialize\b|\bimap_open\b"
                      r"|\barray_\w*u(?:diff|intersect)|\barray_(?:diff|intersect)_u"),
    "lua": re.compile(r"\bload(?:string|file)?\s*\(|\bdofile\b|\b_G\b|\b_ENV\b|\brawget\b"
                      r"|\b[gs]etfenv\b|\bdebug\b|\bpackage\b(?!\s*\.\s*path\b)|\[[^\][]*\.\.[^\][]*\]"
                      r"|\b(?:os|io)\s*\[|=\s*(?:os|io)\b(?!\s*\.)"
                      r"|\brequire\b(?!\s*\(?\s*[\"'][\w.]+[\"']\s*\)?)"
                      rf"|{_KEYED_CALL}"),
    "R": re.compile(r"\bsystem2\b|\bshell(?:\.exec)?\s*\(|\bpipe\s*\("
                    r"|\b(?:eval|evalq|parse|str2lang|str2expression|get0?|mget|do\.call"
                    r"|match\.fun|source|sys\.source|Recall|dyn\.load|library\.dynam)\b"
                    r"|\.(?:Internal|Primitive|Call|External|C)\b"
                    r"|\b(?:processx|callr|sys|rlang)\s*::|`"),
}
"""Per language: code that starts a program, or runs code it computes, in ways beyond the
calls :data:`goosectx.shell_runners._RUNS_COMMANDS` names."""
_SAME = {"ipython": "python", "nodejs": "node", "bun": "node", "pypy": "python", "luajit": "lua",
         "Rscript": "R"}
_PERL_OPEN = re.compile(r"\bopen\w*\b|\bIO::File\b")
"""A perl call that opens a pipe when its mode holds ``|`` (``open(F, "|rm x")``, ``open my
$f, "-|", …``, ``IO::File->new("rm x|")``): with a ``|`` anywhere in the code (the mode may be
in a variable set before or after) the code may run a program."""
_LONE_PIPE = re.compile(r"(?<!\|)\|(?!\|)")
_PIPE_TO = re.compile(r"\|\s*[\"']")
"""A pipe to a command written in a string (awk's ``print | "sort"``): read in every
language's code but perl's, whose ``|`` runs a program only in an open (:data:`_PERL_OPEN`):
``print join("|", @ARGV)`` runs nothing."""


def runs_in_language(name: str, code: str) -> bool:
    """True when ``code``, inline code of the interpreter ``name``, may run unread code.

    ``perl -e 'open(F, "|rm x")'``, ``node -e 'eval(Buffer.from(…).toString())'``,
    ``python3 -c 'eval(bytes.fromhex(…))'``: a program started or code computed at run time.
    """
    found = _FAMILY.fullmatch(name)
    language = _SAME.get(found[1], found[1]) if found is not None else name
    if language == "perl" and _PERL_OPEN.search(code) and _LONE_PIPE.search(code):
        return True  # a piped open
    if language != "perl" and _PIPE_TO.search(code):
        return True
    if language == "python" and _pydoc_runs(code):
        return True
    pattern = _RUNS.get(language) if found is not None else None
    if pattern is not None and pattern.search(code) is not None:
        return True
    outside = _OUTSIDE_STRINGS.get(language) if found is not None else None
    if outside is None:
        return False
    unquoted = blank_strings(code, *_STRINGS[language])
    return outside.search(code if unquoted is None else unquoted) is not None


_OUTSIDE_STRINGS = {"perl": re.compile(r"\bdo\b(?!\s*\{)"), "node": re.compile(r"\\u")}
"""Per language: code that runs unread code only outside a string literal: perl's ``do FILE``
(``print "do it"`` runs nothing), node's ``\\u`` escape in a name (``\\u0065val(s)`` is
``eval(s)``; in a string, ``"\\u00e9"`` is a character)."""
_STRINGS = {
    "perl": (re.compile(r"""[#/`]|<<|[\w$@%&*<]['"]|(?<![\w$@%&-])(?:q[qwrx]?|m|s|tr|y)\s*"""
                        r"[^\w\s]|^=[a-zA-Z]|\bformat\b", re.MULTILINE),
             re.compile(r"[$@]")),
    "node": (re.compile(r"[/`#]|<!--|-->"), None),
}
"""Per language: text outside a string that may hold a quote not opening one (a comment, an
HTML-like or POD one too, a regex, a template literal, perl's ``q()``/``s///``, a
here-document, ``$'``, a format, the old package quote ``$a'b``), after which the strings
are not delimited for sure; text in a ``"…"`` literal that interpolates (perl's ``"@{[ do
'x' ]}"``: the literal is kept)."""


def blank_strings(code: str, unsure: re.Pattern[str],
                  interpolates: re.Pattern[str] | None) -> str | None:
    """``code`` with each ``'…'`` and ``"…"`` literal emptied, or ``None`` when not sure.

    A backslash escapes the next character in both. ``None``: text outside a literal (with the
    quote after it) matches ``unsure``, or a literal is not closed. A
    ``"…"`` literal whose text matches ``interpolates`` is kept.
    """
    out: list[str] = []
    i = 0
    while i < len(code):
        quote = code[i]
        if quote not in "'\"":
            j = min((k for k in (code.find("'", i), code.find('"', i)) if k >= 0),
                    default=len(code))
            if unsure.search(code[i:j + 1]):  # with the quote after it: perl's q'…', $"
                return None
            out.append(code[i:j])
            i = j
            continue
        j = i + 1
        while j < len(code) and code[j] != quote:
            j += 2 if code[j] == "\\" else 1
        if j >= len(code):
            return None
        body = code[i + 1:j]
        kept = quote == '"' and interpolates is not None and interpolates.search(body)
        out.append(quote + (body if kept else "") + quote)
        i = j + 1
    return "".join(out)


_PY_STRING = re.compile(r"""(?<![fF\w])[rRbBuU]{0,2}(?:'''.*?'''|\"\"\".*?\"\"\""""
                        r"""|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")""", re.DOTALL)
"""A python string literal, not an f-string (whose ``{…}`` is code)."""
_PAGER_NAMES = re.compile(r"\b(?:pydoc|_pyrepl|pipe_?pager|tempfilepager)\b")
_PAGER_HARMLESS = re.compile(r"(?<![\w.])import\s+(?:pydoc|_pyrepl)\s*(?:[;\n]|$)"
                             r"|\b(?:pydoc|_pyrepl)\s*\.\s*__\w+__(?!\s*\()")
"""``import pydoc`` itself, and a dunder of it (``pydoc.__name__``): nothing started."""
_PAGER_IMPORT = re.compile(r"""(?:__import__|import_module)\s*\(\s*[rbu]?["'](?:pydoc|_pyrepl)\b""")


def _pydoc_runs(code: str) -> bool:
    """True when python ``code`` may start pydoc's pager (a command line: ``$PAGER``, its own).

    ``pydoc.pager(…)``, ``pipepager(text, 'CMD')``, ``help(…)`` of it, an alias of the module
    or a name from it: any use of ``pydoc`` (or ``_pyrepl``, ``pipe_pager``) in the code
    outside a string literal, but ``import pydoc`` and ``pydoc.__name__``. A string that merely
    says ``"pydoc"`` starts nothing.
    """
    if _PAGER_IMPORT.search(code):  # __import__("pydoc").pager(…): the name is a string
        return True
    bare = _PAGER_HARMLESS.sub(" ", _PY_STRING.sub("''", code))
    return _PAGER_NAMES.search(bare) is not None
