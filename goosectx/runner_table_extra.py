"""Tables for the deny backstop: programs whose arguments are data, and subcommands that run one.

docs/architecture.md §4, clause 2 of the one approval decision: read by
:mod:`goosectx.deny_backstop`. A program in :data:`DATA_PROGRAMS` takes text, patterns, file,
package, target or test names as operands; one of :data:`RUNNING_VERBS` does too unless one of
its words is a subcommand that runs a command (``brew install git`` names a package, ``brew sh
-c 'rm -rf src'`` runs ``rm``): then its arguments are read as an unknown program's are.

Core module: no printing.
"""

from __future__ import annotations

DATA_PROGRAMS = frozenset({
    # text, search and file tools whose operands are text, patterns or file names
    "echo", "printf", "cat", "tac", "head", "tail", "grep", "egrep", "fgrep", "rgrep", "ag",
    "ack", "more", "most", "nl", "od", "xxd", "hexdump", "cut", "tr", "uniq", "comm", "join",
    "paste", "fold", "fmt", "column", "expand", "unexpand", "rev", "diff", "diff3", "cmp",
    "colordiff", "delta", "bat", "batcat", "ls", "exa", "eza", "stat", "readlink", "realpath",
    "basename", "dirname", "touch", "mkdir", "rmdir", "rm", "chmod", "chown", "chgrp", "unlink",
    "truncate", "shred", "tee", "split", "csplit", "base64", "base32", "yes", "seq", "sleep",
    "true", "false", "test", "[", "[[", "expr", "bc", "factor", "numfmt", "iconv",
    "dos2unix", "unix2dos", "wc", "sort", "tsort", "pr", "look", "locate", "mlocate", "xdg-mime",
    "jq", "yq", "xq", "gojq", "gron", "tomlq", "xmllint", "xmlstarlet", "csvlook", "mdcat",
    "sd", "rga", "ugrep", "xsv", "qsv", "mlr", "dasel", "htmlq", "pup", "nano",
    "micro", "hx", "subl", "cloc", "tokei", "scc", "comby", "semgrep", "ast-grep", "gitleaks",
    "trufflehog", "typos", "vale", "aspell", "hunspell",
    "glow", "figlet", "cowsay", "lolcat", "say", "espeak", "notify-send", "logger",
    "wall", "mail", "mailx", "sendmail", "tput", "stty", "clear", "reset", "printenv",
    # lookups that name a program as data
    "which", "whereis", "type", "whatis", "apropos", "man", "info", "help", "tldr", "cheat",
    "hash", "alias", "unalias", "complete", "compgen", "declare", "typeset", "export", "unset",
    "local", "readonly", "read", "mapfile", "readarray", "history", "fc", "dirs", "pushd",
    "popd", "cd", "pwd", "umask", "ulimit", "shopt", "set", "wait", "kill", "killall", "pkill",
    "pgrep", "pidof", "ps", "top", "htop", "lsof", "fuser", "id", "whoami", "groups", "who",
    "w", "last", "uname", "hostname", "hostnamectl", "uptime", "date", "cal", "df", "free",
    "lscpu", "lsblk", "lsusb", "lspci", "nproc", "getconf", "locale", "tzselect", "getent",
    "dpkg", "dpkg-query", "rpm", "apt", "apt-get", "apt-cache", "aptitude", "dnf", "yum",
    "zypper", "pacman", "apk", "snap", "port", "choco", "winget", "scoop", "yay", "paru",
    "pkg", "emerge", "xbps-install", "guix", "nvm", "fnm", "volta", "sdk", "pyenv", "rbenv",
    "nodenv", "goenv", "jenv",
    # package installs: their operands are package names
    "pip", "pip3", "conda", "mamba", "gem", "cargo", "go", "rustc", "rustup", "npm", "pnpm",
    "yarn", "bun", "deno", "composer", "brew", "nix-env", "opam", "cabal", "stack", "mix",
    "luarocks", "cpan", "cpanm", "dotnet", "nuget", "gradle", "mvn", "ant", "sbt", "lein",
    "flutter", "dart", "pod", "carthage", "swift", "zig", "nim", "crystal", "ghcup",
    # version control, network and archive tools modelled or whose operands are names
    "git", "hg", "svn", "gh", "glab", "curl", "wget", "http", "https", "xh", "ping", "dig",
    "host", "nslookup", "traceroute", "tar", "zip", "unzip", "gzip", "gunzip", "zcat", "bzip2",
    "xz", "zstd", "7z", "scp", "sftp", "rsync", "ssh-keygen", "ssh-add", "gpg", "openssl",
    "sha256sum", "md5sum", "cp", "mv", "ln", "install", "find", "fd", "fdfind", "tree",
    "du", "file", "strings", "nm", "objdump", "readelf", "ldd", "size", "lsattr",
    # build and test tools whose operands are targets, files or test names
    "make", "gmake", "cmake", "ninja", "meson", "bazel", "pytest", "py.test", "tox", "nox",
    "mypy", "ruff", "black", "isort", "flake8", "pylint", "pyright", "eslint", "prettier",
    "tsc", "jest", "vitest", "mocha", "rspec", "rake", "phpunit", "ctest", "coverage",
    "pre-commit", "shellcheck", "shfmt", "hadolint", "yamllint", "markdownlint", "codespell",
    "gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "as", "ar", "javac", "java", "kotlinc",
    "scalac", "sqlite3", "psql", "mysql", "redis-cli", "systemctl", "journalctl", "service",
    "docker", "kubectl", "helm", "terraform", "aws", "az", "code", "open", "xdg-open",
})
"""Programs whose arguments the backstop reads as data: everyday commands whose operands are
text, patterns, file, package, target or test names (``grep rm``, ``which rm``, ``apt install
git``, ``man rm``), or whose ways to run a command :mod:`goosectx.shell_command` models
already (``git``'s config, ``make``'s variables, ``docker exec``'s runners). The inline code
and subcommands that run a command are read by their own modules; this list only says the
rest is data."""


RUNNING_VERBS: dict[str, frozenset[str]] = {name: frozenset(verbs) for name, verbs in {
    "rustup": ("run",), "gem": ("exec",), "composer": ("exec", "run-script", "run"),
    "brew": ("sh", "exec", "bundle", "ruby"), "meson": ("devenv",), "mvn": (
        "exec:exec", "exec:java", "antrun:run"), "mvnw": ("exec:exec", "exec:java"),
    "lerna": ("exec", "run"), "rtx": ("exec", "x"), "mise": ("exec", "x"), "flox": (
        "activate",), "flatpak": ("run",), "apptainer": ("exec", "run", "shell"),
    "singularity": ("exec", "run", "shell"), "lxc": ("exec",), "heroku": ("run", "run:detached"),
    "railway": ("run",), "fly": ("ssh", "console"), "flyctl": ("ssh", "console"),
    "gcloud": ("ssh",), "firebase": ("emulators:exec",), "pm2": ("start",), "cargo": (
        "watch",), "dotnet": ("exec",), "npm": ("exec", "x", "run-script"),
    "gradle": ("exec",), "az": ("run-command",), "aws": ("send-command", "execute-command"),
    "helm": ("--post-renderer",), "pyenv": ("exec",), "rbenv": ("exec",), "nodenv": (
        "exec",), "goenv": ("exec",), "jenv": ("exec",), "nvm": ("exec", "run"), "fnm": (
        "exec",), "volta": ("run",), "opam": ("exec",), "cabal": ("exec",), "stack": ("exec",),
    "ghcup": ("run",), "rpm": ("--pipe", "--define", "--predefine", "--eval", "-D", "-E"),
    **dict.fromkeys(("gcc", "g++", "cc", "c++", "clang", "clang++"), (
        "-wrapper",))}.items()}
"""Programs of :data:`DATA_PROGRAMS` or the option tables whose subcommand runs a command
given in their arguments (``rustup run stable rm``, ``gem exec rm``, ``meson devenv rm``,
``mvn exec:exec -Dexec.executable=rm``, ``firebase emulators:exec 'rm x'``, ``pm2 start
rm``, ``gcloud compute ssh vm --command=rm``)."""
SETTINGS = frozenset({"make", "gmake", "bmake", "cmake", "meson", "bazel", "bazelisk", "mvn",
                      "mvnw", "gradle", "gradlew", "scons", "ninja", "ant", "sbt", "xcodebuild"})
"""Build tools whose ``NAME=VALUE`` operands and ``-DNAME=VALUE`` / ``--name=VALUE`` options
set a program they may run (``make x CC=rm``, ``cmake -DCMAKE_C_COMPILER_LAUNCHER=rm``,
``bazel run --run_under=rm``, ``mvn -Dexec.executable=rm``): a value naming a program a deny
or ask rule names is read as that program."""
