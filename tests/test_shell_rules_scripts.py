"""An interpreter's inline code that starts a program or runs code it builds is asked about.

Before, ``run --mode auto --deny 'shell(rm *)'`` ran ``perl -e 'open(F, "|rm f")'`` (a piped
open), ``perl -e 'eval $x'``, ``node -e 'eval(Buffer.from(…).toString())'`` and ``node -e
'new Function(…)()'``: only the calls every language shares (``system``, ``exec``,
backticks) were looked for. The one-liners agents write every day still run.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm


@pytest.mark.parametrize("command", [
    # perl: piped opens (2- and 3-argument), readpipe, a string eval, s///ee
    "perl -e 'open(F,\"|rm f\")'", "perl -e 'open(F, \"rm f|\")'",
    "perl -e 'open my $f, \"-|\", \"rm\", \"f\"'", "perl -e 'open(my $f, \"|-\", \"rm f\")'",
    "perl -e 'open F, q{| rm f}'", "perl -e 'print readpipe(\"rm f\")'", "perl -e 'eval $x'",
    "perl -e 'eval \"sys\".\"tem q(rm f)\"'", "perl -pe 's/(.*)/$1/ee' f",
    "perl -MIPC::Cmd=run -e 'IPC::Cmd::run(command => [qw(rm f)])'",
    "perl -MIPC::Cmd=run -e 'run(command => q(rm f))'", "perl -e 'run(q(rm f))' -MIPC::Cmd=run",
    "perl -M IPC::Open3 -e 'open3(@a)'", "perl -M'strict;system(\"rm f\")' -e 1",
    # what was read before still is
    "perl -e 'print `rm f`'", "perl -e 'qx(rm f)'", "perl -e 'system(\"rm f\")'",
    "perl -e 'exec \"rm\", \"f\"'",
    # node: eval, new Function, vm, a computed require / import()
    "node -e 'eval(Buffer.from(\"cm0gZg==\", \"base64\").toString())'",
    "node -e 'new Function(atob(\"x\"))()'", "node -e 'Function(\"return 1\")()'",
    "node -e 'require(\"vm\").runInThisContext(s)'", "node -e 'require(\"child_\" + \"process\")'",
    "node -e 'import(\"child_\" + \"process\").then(m => m.execSync(\"rm f\"))'",
    "node -e 'require(\"child_process\").execSync(\"rm f\")'", "bun -e 'eval(x)'",
    # python: eval, compile, a computed __import__
    "python3 -c 'eval(bytes.fromhex(\"00\").decode())'", "python3 -c '__import__(\"o\" + \"s\")'",
    "python3 -c 'exec(compile(s, \"x\", \"exec\"))'",
    "ruby -e 'eval(x)'", "php -r 'eval($x);'", "php -r '$f = \"system\"; $f(\"rm f\");'",
    "lua -e 'load(s)()'", "node -e 'globalThis[\"ev\" + \"al\"](s)'",
    "python3 -c 'import os; getattr(os, \"sys\" + \"tem\")(\"rm f\")'",
    "python3 -c 'getattr(__builtins__, \"ev\" + \"al\")(s)'",
    "python3 -c 'import os; os.posix_spawn(\"/bin/rm\", [\"rm\", \"f\"], {})'",
    "python3 -c 'import asyncio as a; a.run(a.create_subprocess_shell(\"rm f\"))'",
    "python3 -c 'import importlib; importlib.import_module(\"o\" + \"s\")'",
    "ruby -e 'open(\"|rm f\")'", "ruby -e 'IO.read(\"| rm f\")'",
    # perl: the open's mode in a string of its own, before it or after; IO::File, IO::Pipe
    "perl -e '$m = \"|rm f\"; open(F, $m)'", "perl -e 'open(F, $m); $m = \"rm f|\"'",
    "perl -MIO::File -e 'IO::File->new(\"rm f|\")'",
    "perl -MIO::Pipe -e 'IO::Pipe->new->reader(qw(rm f))'",
    # awk: print to a pipe (read by every language but perl, whose pipes need an open)
    "awk 'BEGIN { print \"x\" | \"rm f\" }'",
    # mongosh: its --eval code is node's
    "mongosh --eval 'require(\"child_process\").execSync(\"rm f\")'",
    "mongosh --eval=\"$CODE\"", "echo 'db.x.find()' | mongosh",
])
def test_code_that_starts_a_program_or_builds_code_is_asked(command: str) -> None:
    assert action_under_deny_rm(command) in ("ask", "deny")


@pytest.mark.parametrize("command", [
    "perl -pi -e 's/foo/bar/g' f", "perl -ne 'print if /a|b/' f", "perl -lane 'print $F[1]' f",
    "perl -e 'print join(\",\", @ARGV)' a b", "perl -e 'print join(\"|\", @ARGV)' a b",
    "perl -le 'print for split /\\|/, \"a|b\"'", "perl -ne 'print join(q{|}, split)' f",
    "awk '$1 == \"a\" || $2 == \"b\"' f",
    "perl -0777 -pe 's/\\n+/\\n/g' f",
    "perl -e 'eval { die 1 }; print $@'", "perl -MJSON::PP -e 'print encode_json([1])'",
    "perl -w -MData::Dumper -le 'print Dumper(1)'", "perl -MIPC::Run script.pl",
    "perl -e 'open(my $fh, \"<\", \"f\") or die; print <$fh>'", "perl -pe 's/(\\d+)/$1*2/e' f",
    "node -e 'console.log(require(\"./package.json\").version)'", "node -p 'process.versions'",
    "node -e 'const fs = require(\"fs\"); fs.writeFileSync(\"x\", \"y\")'",
    "node -e 'import(\"node:fs\").then(m => console.log(m))'", "node --version",
    "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"a\"])'",
    "python3 -c 'import re; print(re.compile(\"x\"))'",
    "python3 -c 'import importlib.metadata as m; print(m.version(\"x\"))'",
    "python3 -c '__import__(\"json\").dumps(1)'", "ruby -e 'puts 1'", "php -r 'echo 1;'",
    "node -e 'console.log(process.argv[2])' x", "python3 -c 'print(getattr(x, \"y\", 1))'",
    "mongosh --quiet --eval 'db.users.find().limit(3)' mongodb://localhost/app",
    "mongosh mongodb://localhost/app seed.js", "ruby -e 'puts File.read(\"x\")'",
    "python3 -c 'import importlib; print(importlib.import_module(\"json\"))'",
])
def test_everyday_one_liners_still_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run"
