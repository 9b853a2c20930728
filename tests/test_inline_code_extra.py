"""Inline code of interpreters beyond the modelled ones, under ``--deny 'shell(rm *)'``.

A second implementation of a modelled language (``jruby``, ``ts-node``, ``graalpy``) is read as
that language; a language whose ways to run a program are not modelled (``ghc -e``, ``raku
-e``) asks with any inline code; a REPL fed a here-document asks; python's ``webbrowser`` and
AppleScript's ``do shell script`` run commands; so does an rpm macro's ``%(…)`` (docs/architecture.md
§4).
"""

from __future__ import annotations

import pytest

from tests.rules_support import DENY_RM, action
from tests.test_deny_backstop import asked_why

RUNS_RM = {
    "jruby -e 'system(\"rm -rf src\")'": "jruby",
    "truffleruby -e 'system(\"rm -rf src\")'": "truffleruby",
    "tsx -e 'require(\"child_process\").execSync(\"rm -rf src\")'": "tsx",
    "ts-node -e 'require(\"child_process\").execSync(\"rm -rf src\")'": "ts-node",
    "npx tsx -e 'require(\"child_process\").execSync(\"rm -rf src\")'": "tsx",
    "graalpy -c 'import os; os.system(\"rm -rf src\")'": "graalpy",
    "jython -c 'import os; os.system(\"rm -rf src\")'": "jython",
    "micropython -c 'import os; os.system(\"rm -rf src\")'": "micropython",
    "pyston -c 'import os; os.system(\"rm -rf src\")'": "pyston",
    "texlua -e 'os.execute(\"rm -rf src\")'": "texlua",
    "ghc -e 'System.Process.callCommand \"rm -rf src\"'": "ghc",
    "ghci -e 'System.Process.callCommand \"rm -rf src\"'": "ghci",
    "octave --eval 'system(\"rm -rf src\")'": "octave",
    "bb -e '(babashka.process/shell \"rm -rf src\")'": "bb",
    "clojure -e '(clojure.java.shell/sh \"rm\" \"-rf\" \"src\")'": "clojure",
    "raku -e 'shell \"rm -rf src\"'": "raku",
    "perl6 -e 'shell \"rm -rf src\"'": "perl6",
    "crystal eval 'Process.run(\"rm\", [\"-rf\", \"src\"])'": "crystal",
    "ocaml -e 'Sys.command \"rm -rf src\"'": "ocaml",
    "scala -e 'sys.process.Process(\"rm -rf src\").!'": "scala",
    "kotlin -e 'Runtime.getRuntime().exec(\"rm -rf src\")'": "kotlin",
    "jrunscript -e 'exec(\"rm -rf src\")'": "jrunscript",
    "swift -e 'system(\"rm -rf src\")'": "swift",
    "pry -e 'system(\"rm -rf src\")'": "pry",
    "gforth -e 's\" rm -rf src\" system bye'": "gforth",
    "pike -e 'Process.system(\"rm -rf src\")'": "pike",
    "hy -c '(import os) (os.system \"rm -rf src\")'": "hy",
    "mongo --eval 'runProgram(\"rm\", \"-rf\", \"src\")'": "mongo",
    "rc -c 'rm -rf src'": "rc",
    "es -c 'rm -rf src'": "es",
    "murex -c 'rm -rf src'": "murex",
    "ion -c 'rm -rf src'": "ion",
    "matlab -batch 'system(\"rm -rf src\")'": "matlab",
    "python3 -c 'import webbrowser; webbrowser.get(\"rm -rf %s\").open(\"src\")'": "python3",
    "osascript -e 'do shell script \"rm -rf src\"'": "osascript",
    # round 30: an rpm macro's %(…) is a shell line, %{lua:…} lua code
    "rpm --eval '%(rm -rf src)'": "rpm", "rpm -E '%(rm -rf src)'": "rpm",
    "rpm --eval='%(rm -rf src)'": "rpm", "rpmbuild -ba x.spec -D 'x %(rm -rf src)'": "rpmbuild",
    "rpmspec -P x.spec --define='x %{lua: os.execute(\"rm -rf src\")}'": "rpmspec",
}


@pytest.mark.parametrize("command", list(RUNS_RM))
def test_inline_code_that_may_run_rm_is_asked_about(command: str) -> None:
    assert asked_why(command).startswith(f"its inline {RUNS_RM[command]} code runs commands")


@pytest.mark.parametrize("command", ["jshell <<'EOF'\nRuntime.getRuntime().exec(\"rm x\");\nEOF",
                                     "irb <<'EOF'\nsystem('rm -rf src')\nEOF",
                                     "echo 'system(\"rm x\")' | irb"])
def test_a_repl_fed_its_code_is_asked_about(command: str) -> None:
    assert "runs a program it reads from its standard input" in asked_why(command)


@pytest.mark.parametrize("command", ["jruby -e 'puts 1'", "tsx -e 'console.log(1)'",
                                     "graalpy -c 'print(1)'", "ts-node src/x.ts", "irb -v",
                                     "ghc Main.hs", "jshell --version",
                                     "rpm --eval '%{_libdir}'", "rpm -qa", "rpm -E %_arch",
                                     "rpmbuild -ba x.spec -D 'debug_package %{nil}'"])
def test_code_that_runs_no_command_still_runs(command: str) -> None:
    assert action(DENY_RM, command) == "run"
