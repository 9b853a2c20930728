"""What each program's options do that the rest of its command line does not show: the table.

docs/architecture.md §4 (clause "permission rules"). :class:`Does` names the effects,
:class:`Option` one option's spellings, :data:`OPTIONS` the entries per program (``"git add"``
for a subcommand), :data:`KNOWN` the option strings taken whole, :data:`JUDGED_OUTPUT` the
programs whose output files are judged as write targets. The lookup over it is
:func:`goosectx.option_table.option_hits`. Core module: no printing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from goosectx.shell_options import WGET_VALUED


class Does(Enum):
    """What an option makes its program do, as the approval says it."""

    WRITES = "names a file or directory it writes or empties, which the rules do not judge"
    WHOLE = "reads two paths whole, directories included"
    LIST = "reads the files a list or its input names"
    ARGUMENTS = "takes the arguments of its command from a file"
    RUNS_FILE = "runs the program in a file"
    OUTPUT = "writes its output to the file named"
    """Asks unless the file is ``/dev/stdout``, ``/dev/stderr`` or ``/dev/null``
    (:mod:`goosectx.option_writes`); read for git config and hooks too."""
    INTO = "writes into the directory named"
    """Likewise: ``cp -t DIR``, a git directory gets a ``config``."""
    HERE = "writes into the directory it runs in, under a name the URL or server gives"
    """Judged as a write of that dir (:mod:`goosectx.git_config_writes`): ``curl -O``/``-J``."""
    RUNS = "runs another program or takes settings its rule does not show"
    """Always asks: ``cargo --config 'target.X.runner=…'``, ``go test -exec``, ``mypy
    --install-types`` (runs pip), ``rg --hostname-bin=P`` (rg 14 runs P); ``sort
    --compress-program=P`` but a compressor: :func:`goosectx.option_values.sort_compressor`;
    ``go env -w GOFLAGS=-toolexec=P`` stores flags every later go command takes."""
    UNTRACKED = "reads untracked and ignored files too (a .env)"
    """Always asks: ``git grep --untracked``, ``--no-exclude-standard``, as ``--no-index``."""
    SETS = "changes the system's settings"
    """Always asks: ``date -s``/``--set`` sets the clock."""
    SENDS = "sends what it prints to a web service"
    """Always asks: ``pytest --pastebin=all`` uploads the test output."""


@dataclass(frozen=True)
class Option:
    """One option (or a family of spellings of it) and what it does.

    ``longs``: long options, any unique prefix; ``words``: words matched whole (``find
    -fprint``, ``parallel -a``); ``letters``: short options, anywhere in a cluster (``-cT``),
    or, with ``valued``, in the cluster read up to the first letter of ``valued`` that takes the
    rest as its value (tar, ``pytest -qo X``, ``sort -uoF``); ``starts``: word prefixes, read
    past ``--`` too (``parallel :::: F``); ``bare``: the first word, with no dash, is a cluster
    too (``tar cTf - x.tar``); ``flags``: go's and tsc's names, lowercase, taken whole after one
    dash or two, with ``=V`` or the next word (``-cpuprofile=F``, ``--outDir D``, go's
    ``-test.trace F`` too), read anywhere (go takes them after its packages).
    """

    does: Does
    longs: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    letters: str = ""
    starts: tuple[str, ...] = ()
    valued: str = ""
    bare: bool = False
    flags: tuple[str, ...] = ()


_PYTEST_KNOWN = frozenset({
    "-k", "-m", "--markers", "-x", "--exitfirst", "--maxfail", "--strict-config",
    "--strict-markers", "--strict", "--fixtures", "--funcargs", "--fixtures-per-test", "--pdb",
    "--pdbcls", "--trace", "--capture", "-s", "--runxfail", "--lf", "--last-failed", "--ff",
    "--failed-first", "--nf", "--new-first", "--cache-show", "--cache-clear", "--lfnf",
    "--last-failed-no-failures", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip",
    "--sw-reset", "--stepwise-reset", "--durations", "--durations-min", "-v", "--verbose",
    "--no-header", "--no-summary", "--no-fold-skipped", "--force-short-summary", "-q",
    "--quiet", "--verbosity", "-r", "--report-chars", "--disable-warnings",
    "--disable-pytest-warnings", "-l", "--showlocals", "--no-showlocals", "--tb", "--xfail-tb",
    "--show-capture", "--fulltrace", "--full-trace", "--color", "--code-highlight",
    "--pastebin", "--junitxml", "--junit-xml", "--junitprefix", "--junit-prefix", "-W",
    "--pythonwarnings", "--max-warnings", "--collectonly", "--collect-only", "--co",
    "--pyargs", "--ignore", "--ignore-glob", "--deselect", "--confcutdir", "--noconftest",
    "--keepduplicates", "--keep-duplicates", "--collect-in-virtualenv",
    "--continue-on-collection-errors", "--import-mode", "--doctest-modules",
    "--doctest-report", "--doctest-glob", "--doctest-ignore-import-errors",
    "--doctest-continue-on-failure", "-c", "--config-file", "--rootdir", "--basetemp", "-V",
    "--version", "-h", "--help", "-p", "--disable-plugin-autoload", "--traceconfig",
    "--trace-config", "--debug", "-o", "--override-ini", "--assert", "--setuponly",
    "--setup-only", "--setupshow", "--setup-show", "--setupplan", "--setup-plan",
    "--log-level", "--log-format", "--log-date-format", "--log-cli-level", "--log-cli-format",
    "--log-cli-date-format", "--log-file", "--log-file-mode", "--log-file-level",
    "--log-file-format", "--log-file-date-format", "--log-auto-indent", "--log-disable",
    # common plugins' options (pytest-cov's --cov reads, --cov-report: _PYTEST's; xdist; …)
    "--cov", "--cov-report", "--cov-config", "--cov-fail-under", "--cov-branch", "--cov-append",
    "--cov-context", "--no-cov", "--no-cov-on-fail", "-n", "--numprocesses", "--dist",
    "--maxprocesses", "--reruns", "--reruns-delay", "--timeout", "--timeout-method",
    "--randomly-seed", "-P", "--asyncio-mode", "--hypothesis-profile", "--hypothesis-seed",
    "--hypothesis-show-statistics", "--benchmark-only", "--benchmark-skip",
    "--benchmark-disable", "--ds", "--reuse-db", "--create-db", "--no-migrations",
})
"""pytest's own option strings (pytest 8's ``--help``) and a few common plugins': taken whole
they win over a prefix of another (``--co`` is ``--collect-only``, not ``--cov-report``;
``--lf`` is ``--last-failed``), as argparse takes them. A long option not here is a plugin's,
whose value :mod:`goosectx.option_writes` judges as a file it may write."""
_PYTEST = (Option(Does.WRITES, letters="o", valued="kmcpWrn", longs=(
    "--basetemp", "--debug", "--override-ini", "--confcutdir", "--lf-cache",
    "--cache-dir")), Option(Does.OUTPUT, longs=(
        "--cov-report", "--junitxml", "--junit-xml", "--resultlog", "--result-log",
        "--report-log", "--log-file", "--html")), Option(Does.ARGUMENTS, starts=("@",)),
           Option(Does.SENDS, longs=("--pastebin",)))
"""pytest options naming a file or dir it writes or empties (``--basetemp`` is deleted first),
or (``--override-ini``, ``-o``) an ini value that may (``cache_dir``, ``junit_…``); the report
and log files it writes (``--junitxml=F``: judged as a write target under deny rules,
:mod:`goosectx.option_writes`); ``@F`` reads more arguments from F (pytest 8.2+), which may be
any of these. ``--cov-report=TYPE[:DEST]``'s file is DEST or TYPE's own
(:func:`goosectx.option_table.cov_report_file`)."""
TAR_VALUED = "fCbgHIKLNVX"
"""tar's short options that take a value (``-f ARCHIVE``, ``-I PROG``, ``-C DIR`` …)."""
_TAR = (Option(Does.LIST, longs=("--files-from",), letters="T", valued=TAR_VALUED, bare=True),
        Option(Does.OUTPUT, longs=("--index-file", "--volno-file")),
        Option(Does.INTO, longs=("--directory",), letters="C", valued=TAR_VALUED))
"""``tar -T LIST``; ``--index-file=F`` writes the listing (verbose output) to F,
``--volno-file=F`` the volume number; ``-C DIR`` is where it extracts (a write target then:
:mod:`goosectx.git_config_writes`). The programs tar runs (``-I``, ``--checkpoint-action``,
``--rsh-command``, ``-F``) are command lines of their own (``shell_options.option_commands``),
a ``HOST:FILE`` archive: :func:`goosectx.option_values.tar_remote_archive`."""
_FILES0 = (Option(Does.LIST, longs=("--files0-from",)),)
_CHECKSUMS = (Option(Does.LIST, longs=("--check",), letters="c"),)
"""``md5sum -c SUMS``: reads (and reports on) every file the list names."""
_PATHSPEC = (Option(Does.LIST, longs=("--pathspec-from-file",)),)
"""``git add|checkout|rm|restore|reset|commit|stash … --pathspec-from-file=F``: stages,
overwrites, deletes or commits the files F names."""
_PROGRAM_FILE = (Option(Does.RUNS_FILE, longs=("--file",), letters="f"),)
_MAKEFILE = (Option(Does.RUNS_FILE, longs=("--file", "--makefile"), letters="f"),)
_TARGET_DIR = (Option(Does.INTO, longs=("--target-directory",), letters="t", valued="S"),)
_INSTALL = (Option(Does.INTO, longs=("--target-directory",), letters="t", valued="gmoS"),)
"""``cp|mv|ln -t DIR`` / ``install -t DIR``, in a cluster too, its value glued or the next word
as getopt reads it (``-vt DIR``, ``-t.git/hooks``; ``-ta D`` is ``-t a``); the letters before
it that take a value (``-S SUFFIX``, install's ``-g``, ``-m``, ``-o``) end the cluster."""
_RUSTC_RUNS = ("-Clinker=", "linker=", "--codegen=linker=", "-Zcodegen-backend=",
               "codegen-backend=")
"""rustc's (and rustdoc's) ``-C linker=P`` / ``-Clinker=P`` run P as the linker;
``-Z codegen-backend=x.so`` loads a library whose code runs (``linker=`` is matched as any
word: the value of a separate ``-C``); ``cargo rustc -- -C linker=P`` hands them on."""
_CARGO = (Option(Does.RUNS, longs=("--config",), letters="Z", valued="pjFC"),
          Option(Does.RUNS, starts=_RUSTC_RUNS),
          Option(Does.OUTPUT, longs=("--target-dir",)),
          Option(Does.OUTPUT, longs=("--logfile",), starts=("--logfile",)))
"""``cargo --config K=V`` sets any config (``target.<triple>.runner=['sh','-c',…]`` runs a
command), ``-Z`` unstable features; after ``--``, libtest's ``--logfile F``."""
_GO = (Option(Does.RUNS, flags=("exec", "toolexec", "vettool")),
       Option(Does.LIST, flags=("overlay",)), Option(Does.WRITES, flags=("modfile",)),
       Option(Does.OUTPUT, flags=("o", "cpuprofile", "memprofile", "blockprofile",
                                  "mutexprofile", "trace", "coverprofile", "outputdir",
                                  "testlogfile", "gocoverdir", "pkgdir")))
"""go's build and test flags: ``-exec``/``-toolexec``/``-vettool`` run a program,
``-overlay`` replaces files by those a JSON file names, ``-modfile`` is a go.mod go may
update; the profile and output flags write files (``-ldflags``:
:func:`goosectx.option_values.go_flag_values`)."""
_MYPY_REPORTS = tuple(f"--{kind}-report" for kind in (
    "any-exprs", "cobertura-xml", "html", "linecount", "linecoverage", "lineprecision", "txt",
    "xml", "xslt-html", "xslt-txt"))
_MYPY = (Option(Does.RUNS, longs=("--install-types", "--python-executable")),
         Option(Does.ARGUMENTS, starts=("@",)),
         Option(Does.OUTPUT, longs=("--junit-xml", "--cache-dir", *_MYPY_REPORTS)))
"""``mypy --install-types`` runs pip, ``--python-executable P`` runs P; ``@F`` reads its
arguments from F; reports, the junit file and the cache are written where named."""
_TSC = (Option(Does.OUTPUT, flags=("outfile", "outdir", "out", "declarationdir",
                                   "tsbuildinfofile", "generatetrace", "generatecpuprofile")),)
_LINTER_OUTPUT = (Option(Does.OUTPUT, longs=("--output-file", "--cache-location", "--cache-dir"),
                         letters="o", valued="cf"),)
"""``ruff|eslint -o F`` / ``--output-file F`` write their report there, ``--cache-location``
(eslint), ``--cache-dir`` (ruff) their cache; prettier's ``--cache-location`` too."""

CURL_VALUED = "AbcCdDeEFHKmoPQrtTuUwxXyYz"
"""curl's short options that take a value (``-o FILE``, ``-d DATA``, ``-H HEADER`` …)."""
_CURL = (Option(Does.OUTPUT, letters="oDc", valued=CURL_VALUED, longs=(
    "--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--libcurl",
    "--etag-save", "--stderr", "--hsts", "--alt-svc")),
         Option(Does.INTO, longs=("--output-dir",)),
         Option(Does.HERE, letters="OJ", valued=CURL_VALUED, longs=(
             "--remote-name", "--remote-name-all", "--remote-header-name")))
"""curl's options naming a file it writes (``-o``, ``-D`` headers, ``-c`` cookies, traces,
``--stderr``, the ``--hsts``/``--alt-svc`` caches), the dir ``-O``/``-J`` write into
(``--output-dir``), or, without it, the dir it runs in (``-O``, ``-J``, ``--remote-name-all``);
``-`` is standard output. Its reads (``-F name=@F``, ``-d @F``, ``file:`` URLs) are judged as the
word's paths: :func:`goosectx.glob_words.value_names`."""
_WGET = (Option(Does.OUTPUT, letters="oaO", valued=WGET_VALUED, longs=(
    "--output-document", "--output-file", "--append-output", "--save-cookies", "--hsts-file",
    "--warc-file")), Option(Does.INTO, letters="P", valued=WGET_VALUED,
                            longs=("--directory-prefix",)))
"""wget's options naming the file it saves to (``-O``), logs to (``-o``, ``-a``), the dir it
saves into (``-P``; without it or ``-O``, the dir it runs in), its cookie and HSTS files; ``-``
is standard output. Its ``-e CMD``: :func:`goosectx.shell_options.wget_writes`."""
PATCH_VALUED = "BdDFgioprVxYz"
"""patch's short options that take a value (``-o OUTFILE``, ``-r REJECTS``, ``-d DIR`` …)."""
_PATCH = (Option(Does.OUTPUT, longs=("--output", "--reject-file"), letters="or",
                 valued=PATCH_VALUED),
          Option(Does.INTO, longs=("--directory",), letters="d", valued=PATCH_VALUED))
"""``patch -o F`` writes the patched file to F, ``-r F`` its rejects; ``-d DIR`` patches the
files the diff names in DIR (those names are the diff's, not the command line's)."""
_ARCHIVE_INTO = {
    "unzip": (Option(Does.INTO, letters="d", valued="dxPIO"),),
    "cpio": (Option(Does.LIST, longs=("--create", "--pass-through"), letters="op"),
             Option(Does.INTO, longs=("--directory",), letters="D", valued="CDEFHIMOR")),
    "ar": (Option(Does.INTO, longs=("--output",)),
           Option(Does.RUNS, longs=("--plugin",))),  # a library it loads: its code runs
    **dict.fromkeys(("nm", "ranlib"), (Option(Does.RUNS, longs=("--plugin",)),)),
    **dict.fromkeys(("7z", "7za", "7zz", "7zr"), (Option(Does.INTO, letters="o", valued="o"),)),
    "zip": (Option(Does.LIST, longs=("--names-stdin",), letters="@"),
            Option(Does.OUTPUT, longs=("--output-file",), words=("-O",))),
}
"""The dir ``unzip -d``, ``cpio -D``, ``ar x --output``, ``7z x -oDIR`` extract into; the
file ``zip -O`` writes; binutils' ``--plugin x.so`` (``ar``, ``nm``, ``ranlib``), a library
whose code runs, as ``openssl -engine``'s does."""
COMPILER = re.compile(r"(?:[\w.]+-)*(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|gfortran|tcc|cpp"
                      r"|as|ld(?:\.(?:gold|lld|bfd|mold))?|gold|lld|mold)(?:-[\d.]+)?")
"""C, C++ and Fortran compilers, assemblers and linkers by name (``gcc``, ``gcc-12``,
``x86_64-linux-gnu-gcc-12``, ``clang-17``, ``musl-gcc``, ``g++-13``, ``ld.gold``): their
options are :data:`OPTIONS`' ``"cc"`` entry (:func:`compiler_words`); build tools (``-wrapper
PROG``, ``-fplugin=x.so`` run any code), offered the command as it is
(:mod:`goosectx.rule_offer`)."""
_SIDE_FILES = ("-MF", "-MJ", "-dumpbase", "-dumpdir", "-Map", "--Map")
"""gcc's ``-MF F`` (the dependency file ``-MD`` writes), clang's ``-MJ F`` (a compilation
database entry), ``-dumpbase``/``-dumpdir`` (the prefix of ``-fdump-*``'s files), the
linker's ``-Map F`` (``-Wl,-Map=F``)."""
_GLUED_SIDE = re.compile(r"(-M[FJ])(.+)|(--?Map)=(.*)")
"""``-MFF``, ``-MJF``, ``-Map=F``: one of :data:`_SIDE_FILES` with its value in the word."""
_COMPILE = (Option(Does.OUTPUT, longs=("--output",), letters="o",
                   valued="oIDLlUxXuBFGTzefmWOgiM"),
            Option(Does.OUTPUT, words=_SIDE_FILES),
            Option(Does.RUNS, starts=("-fplugin=", "-fpass-plugin=", "--plugin=", "-plugin=",
                                      "-specs=", "--specs=", "--load-pass-plugin="),
                   words=("-load", "-plugin", "--plugin", "-specs", "--specs")))
"""A C compiler's, assembler's or linker's ``-o FILE`` / ``-oFILE`` / ``--output[=]FILE`` (the
letters before ``o`` that take the rest of the word end the cluster: ``-fno-omit…`` is
``-f``'s), and the files it writes beside it (:data:`_SIDE_FILES`); a library or spec file
it loads, whose code runs in the compiler or linker (gcc's ``-fplugin=x.so``, clang's
``-Xclang -load -Xclang x.so`` and ``-fpass-plugin=x.so``, the linker's ``-plugin x.so`` /
``--plugin=x.so`` / ``-plugin=x.so`` (``-Wl,-plugin=x.so``), a ``-specs=F`` file, whose
``%(…)`` rules may run programs); the
linker's options a compiler passes on (``-Wl,-o,F``, ``-Xlinker -o -Xlinker F``) are read as
words of their own (:func:`compiler_words`)."""


def compiler_words(name: str, args: list[str]) -> tuple[str, list[str]]:
    """``"cc"`` and the words of a compiler or linker :data:`COMPILER` names, else as given.

    ``-Wl,-o,F`` is ``-o F``, ``-Xlinker X`` is ``X``: the options gcc and clang hand the
    linker, which writes its ``-o`` file as theirs; ``-MFF`` and ``-Map=F`` are two words.
    """
    if not COMPILER.fullmatch(name):
        return name, args
    words: list[str] = []
    linker = False
    for word in args:
        if linker:
            words.append(word)
        elif word.startswith("-Wl,"):
            words += word[4:].split(",")
        elif word != "-Xlinker":
            words.append(word)
        linker = word == "-Xlinker" and not linker
    return "cc", [part for word in words for part in _split_side(word)]


def _split_side(word: str) -> list[str]:
    """``-MFF`` as ``-MF``, ``F``; ``-Map=F`` as ``-Map``, ``F``; any other word as it is."""
    glued = _GLUED_SIDE.fullmatch(word)
    return [part for part in glued.groups() if part is not None] if glued else [word]


_WRITTEN_FILES = {
    "cc": _COMPILE,
    **dict.fromkeys(("zstd", "unzstd", "zstdmt"), (
        Option(Does.OUTPUT, letters="o", valued="oDT"),
        Option(Does.INTO, longs=("--output-dir-flat", "--output-dir-mirror")))),
    "gh release download": (Option(Does.OUTPUT, longs=("--output",), letters="O",
                                   valued="OpDRA"),
                            Option(Does.INTO, longs=("--dir",), letters="D", valued="OpDRA")),
    "sdiff": (Option(Does.OUTPUT, longs=("--output",), letters="o", valued="oIw"),),
    **dict.fromkeys(("gpg", "gpg2"), (Option(Does.OUTPUT, longs=("--output",), letters="o",
                                             valued="orRuzfFN"),)),
    # and a library each loads (ssh-keygen -D pkcs11.so, -w a security-key provider;
    # openssl's dynamic engine -pre SO_PATH:x.so, a provider dir): it runs that code
    "openssl": (Option(Does.OUTPUT, words=("-out", "-keyout")),
                Option(Does.RUNS, words=("-pre", "-post", "-engine", "-provider-path"))),
    "ssh-keygen": (Option(Does.OUTPUT, letters="f", valued="CDEFIJMNOPRVYZabfgjmnrstwz"),
                   Option(Does.RUNS, letters="Dw", valued="CDEFIJMNOPRVYZabfgjmnrstwz")),
    "git checkout-index": (Option(Does.OUTPUT, longs=("--prefix",)),),
    "git archive": (Option(Does.OUTPUT, letters="o", valued="o"),),
    "git format-patch": (Option(Does.INTO, longs=("--output-directory",), letters="o",
                                valued="ov"),),
    "git read-tree": (Option(Does.OUTPUT, longs=("--index-output",)),),
    "git fast-export": (Option(Does.OUTPUT, longs=("--export-marks",)),),
    "git fast-import": (Option(Does.OUTPUT, longs=("--export-marks", "--export-pack-edges")),),
    **dict.fromkeys(("git commit-graph", "git multi-pack-index"), (
        Option(Does.INTO, longs=("--object-dir",)),)),
    **dict.fromkeys(("git bugreport", "git diagnose"), (
        Option(Does.INTO, longs=("--output-directory",), letters="o", valued="os"),)),
}
"""Files and dirs a program writes as its rule lets it (:data:`JUDGED_OUTPUT`); ``git
checkout-index --prefix=P`` writes ``P`` + each path, ``git read-tree --index-output=F`` an
index, ``fast-export|fast-import --export-marks=F`` its marks, ``commit-graph|multi-pack-index
--object-dir=D`` files in D, ``bugreport|diagnose -o D`` a report in D."""
_RUSTC = (Option(Does.RUNS, starts=_RUSTC_RUNS),)
_FILTER_REPO = (Option(Does.RUNS, starts=tuple(f"--{kind}-callback" for kind in (
    "blob", "commit", "filename", "message", "name", "email", "refname", "tag", "reset",
    "file-info", "person"))),)
"""``git filter-repo --blob-callback CODE``: Python code it runs on each blob, commit …"""
_PIP = (Option(Does.OUTPUT, longs=("--log", "--log-file", "--local-log", "--cache-dir",
                                   "--report")),)
"""``pip … --log F`` appends its log to F, ``--cache-dir D`` writes there, ``--report F``."""
PIP_VALUED = frozenset({"--log", "--log-file", "--local-log", "--proxy", "--retries",
                        "--timeout", "--exists-action", "--trusted-host", "--cert",
                        "--client-cert", "--cache-dir", "--python", "--use-feature",
                        "--use-deprecated", "--keyring-provider", "--resume-retries"})
"""pip's general options that take the next word (``pip --log F download``: F no subcommand)."""

OPTIONS: dict[str, tuple[Option, ...]] = {
    "git": (Option(Does.WRITES, longs=("--output",)), Option(Does.WHOLE, longs=("--no-index",)),
            Option(Does.INTO, longs=("--work-tree",))),  # git --work-tree=D checkout: D
    **dict.fromkeys(("git add", "git checkout", "git rm", "git restore", "git reset",
                     "git commit", "git stash"), _PATHSPEC),
    "pytest": _PYTEST, "py.test": _PYTEST,
    "sort": (*_FILES0, Option(Does.OUTPUT, longs=("--output",), letters="o", valued="kStT")),
    "rg": (Option(Does.RUNS, longs=("--hostname-bin",)),),
    "du": _FILES0, "wc": _FILES0,
    "shuf": (Option(Does.OUTPUT, longs=("--output",), letters="o", valued="in"),),
    "tree": (Option(Does.OUTPUT, letters="o", valued="LPIHT"),
             Option(Does.WRITES, letters="R", valued="LPIHTo")),  # -R: 00Tree.html in each dir
    "strings": (Option(Does.ARGUMENTS, starts=("@",)),),
    "date": (Option(Does.SETS, longs=("--set",), letters="s", valued="dfr"),),
    "file": (Option(Does.LIST, longs=("--files-from",), letters="f", valued="eFmP"),
             Option(Does.WRITES, longs=("--compile",), letters="C", valued="eFmPf")),
    "npm": (Option(Does.OUTPUT, longs=("--cache", "--logs-dir")),),
    "less": (Option(Does.OUTPUT, longs=("--log-file", "--LOG-FILE"), letters="oO",
                    valued="bhjkpPtTxyz#"),),
    "tar": _TAR, "gtar": _TAR, "bsdtar": _TAR,
    "rsync": (Option(Does.LIST, longs=("--files-from",)),),
    **_ARCHIVE_INTO, **_WRITTEN_FILES,
    "ctags": (Option(Does.LIST, letters="L"),), "etags": (Option(Does.LIST, letters="L"),),
    "pax": (Option(Does.LIST, letters="w"),),
    "jq": (Option(Does.LIST, longs=("--from-file",), letters="f"),),
    "find": (Option(Does.LIST, words=("-files0-from",)),
             Option(Does.OUTPUT, words=("-fprint", "-fprint0", "-fprintf", "-fls"))),
    "parallel": (Option(Does.ARGUMENTS, words=("-a",), longs=("--arg-file",),
                        starts=("::::",)),),
    "md5sum": _CHECKSUMS, "sha1sum": _CHECKSUMS, "sha224sum": _CHECKSUMS,
    "sha256sum": _CHECKSUMS, "sha384sum": _CHECKSUMS, "sha512sum": _CHECKSUMS,
    "b2sum": _CHECKSUMS, "cksum": _CHECKSUMS, "shasum": _CHECKSUMS,
    "make": _MAKEFILE, "gmake": _MAKEFILE,
    "sed": _PROGRAM_FILE, "gsed": _PROGRAM_FILE,
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "busybox-awk"), _PROGRAM_FILE),
    "cp": _TARGET_DIR, "mv": _TARGET_DIR, "install": _INSTALL, "ln": _TARGET_DIR,
    "cargo": _CARGO, "go": _GO, "go env": (Option(Does.RUNS, flags=("w", "u")),),
    "mypy": _MYPY, "dmypy": _MYPY, "tsc": _TSC,
    "ruff": (*_LINTER_OUTPUT, Option(Does.ARGUMENTS, starts=("@",))), "eslint": _LINTER_OUTPUT,
    "prettier": (Option(Does.OUTPUT, longs=("--cache-location",)),),
    "compileall": (Option(Does.LIST, letters="i", valued="rdspxjoe"),),  # python -m compileall
    "curl": _CURL, "wget": _WGET, "patch": _PATCH, "pip": _PIP, "pip3": _PIP,
    # the dir pip download and pip wheel save into (pip -q download -d D: the subcommand's)
    "pip download": (Option(Does.INTO, longs=("--dest",), letters="d", valued="drcefi"),),
    "pip wheel": (Option(Does.INTO, longs=("--wheel-dir",), letters="w", valued="wrcefi"),),
    # the dirs pip install installs into (pip install -t .git/hooks x writes a hook)
    "pip install": (Option(Does.INTO, longs=("--target", "--prefix", "--root", "--src"),
                           letters="t", valued="trcefiC"),),
    "git grep": (Option(Does.UNTRACKED, longs=("--untracked", "--no-exclude-standard")),),
    # node --test's report file (node --test alone runs the project's test files)
    **dict.fromkeys(("node", "nodejs"), (Option(Does.OUTPUT, longs=(
        "--test-reporter-destination",)),)),
    # a Lua script ncat runs (ssh-keygen's and openssl's libraries: _WRITTEN_FILES)
    "ncat": (Option(Does.RUNS, longs=("--lua-exec",)),),
    "rustc": _RUSTC, "rustdoc": _RUSTC, "git filter-repo": _FILTER_REPO,
    # cmake's build, binary and install dirs (cmake -B build, --build build, --install build
    # --prefix P): written, judged as write targets; make install PREFIX=P's is not asked
    "cmake": (Option(Does.INTO, longs=("--build", "--install", "--prefix", "--install-prefix"),
                     letters="B", valued="SBCDUGTAjt"),),
    # virtualenv DEST makes a venv there as python -m venv does; --app-data is its cache dir
    "virtualenv": (Option(Does.OUTPUT, longs=("--app-data",)),),
}
"""Per program (or ``"program subcommand"``), its options that do what its words do not show."""
JUDGED_OUTPUT = frozenset({"curl", "wget", "patch", "zip", *_WRITTEN_FILES})
"""Programs whose rule lets them write the files their :attr:`Does.OUTPUT` options name: those
are judged as write targets, as ``tee``'s are (:mod:`goosectx.git_config_writes`, the
sensitive-file and outside checks), not asked (``curl -o out.html URL`` runs, ``curl -o
.git/hooks/x URL`` asks); their ``-`` is standard output (``wget -O-``, ``patch -o -``)."""
_CACHE = frozenset({"--cache", "--cache-strategy"})
_TAR_KNOWN = frozenset({"--file"})
"""``tar --file=A`` names the archive: no prefix of ``--files-from``."""
KNOWN: dict[str, frozenset[str]] = {"pytest": _PYTEST_KNOWN, "py.test": _PYTEST_KNOWN,
                                    "eslint": _CACHE, "prettier": _CACHE, "tar": _TAR_KNOWN,
                                    "gtar": _TAR_KNOWN, "bsdtar": _TAR_KNOWN,
                                    "pip install": frozenset({"--pre"}),  # no --prefix
                                    "curl": frozenset({"--cookie", "--trace-time",
                                                       "--trace-ids", "--trace-config"})}
"""Per program, its option strings that, written whole, are themselves and no prefix of
another (getopt and argparse take an exact match first)."""
MODULES = frozenset({"pytest", "mypy", "ruff", "black", "compileall", "pip", "json.tool",
                     "zipfile", "tarfile", "venv"})
"""Programs run as ``python -m NAME`` too."""
