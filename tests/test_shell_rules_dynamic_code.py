"""Inline code the deny rules cannot rule out is asked about: built names, modules, data: URLs.

Before, ``run --mode auto --deny 'shell(rm *)'`` ran each of these (a tester's finding):
``python3 -m timeit "__import__('os').system('rm x')"`` and ``python3 -m pdb -c …`` (code
given to a module, not to ``-c``), ``vars(os)['sys'+'tem']('rm x')`` and
``os.__dict__[…]`` (a name built at run time), ``node --import 'data:text/javascript,…'``
(code in a loader's URL), lua's ``os["exe".."cute"]`` and php's ``("sys"."tem")(…)``. Code
whose way to a program the patterns cannot see is read as code that may run one; the
one-liners agents write every day still run.
"""

from __future__ import annotations

import base64

import pytest
from rules_support import DENY_RM, action_under_deny_rm, check_under_deny_rm, shell_verdict

DYNAMIC = [
    # python: a module that takes code; a name built and looked up at run time
    """python3 -m timeit "__import__('os').system('rm x')\"""",
    """python3 -mtimeit -s "import os" "os.system('rm x')\"""",
    """python3 -m pdb -c "__import__('os').system('rm x')" -c c src/a.py""",
    """python3 -m cProfile -m timeit "__import__('os').system('rm x')\"""",
    """python3 -c "import os; vars(os)['sys'+'tem']('rm x')\"""",
    """python3 -c "import os; os.__dict__['sys'+'tem']('rm x')\"""",
    """python3 -c "import os; f = vars(os)['sys'+'tem']; f('rm x')\"""",
    """python3 -c "import sys, os; sys.modules['o'+'s'].__getattribute__('sys'+'tem')('rm x')\"""",
    """python3 -c "import functools, os; functools.reduce(getattr, ['sys'+'tem'], os)('rm x')\"""",
    """python3 -c "import pickle, base64; pickle.loads(base64.b64decode(s))\"""",
    """python3 -c "import ctypes; ctypes.CDLL(None)['sys'+'tem'](b'rm x')\"""",
    # node: code in a data: URL a loader option loads, before the script or -e code
    """node --import 'data:text/javascript,import {execSync} from "child_process"; """
    """execSync("rm x")' e.js""",
    """node --loader 'data:text/javascript,import {execSync} from "child_process"' e.js""",
    """node --experimental-loader=data:text/javascript,import%20%7BexecSync%7D%20from"""
    """%20%22child_process%22 e.js""",
    """node -r 'data:text/javascript,require("child_process").execSync("rm x")' e.js""",
    "node --import 'data:text/javascript;base64,"
    + base64.b64encode(b'require("child_process").execSync("rm x")').decode() + "' e.js",
    "node --import 'data:text/javascript;base64,%%%' e.js",
    """node --require ./setup.js -e 'require("child_process").execSync("rm x")'""",
    # lua, php, ruby, perl: a function named by a string built at run time
    """lua -e 'os["exe".."cute"]("rm x")'""",
    """lua -e 'local o = os; local f = o.execute; f("rm x")'""",
    """lua -e '_G["o".."s"].execute("rm x")'""",
    """php -r '("sys"."tem")("rm x");'""",
    """php -r 'call_user_func("sys"."tem", "rm x");'""",
    """php -r 'array_map("sys"."tem", ["rm x"]);'""",
    """ruby -e 'Kernel.method("sys"+"tem").call("rm x")'""",
    """ruby -e 'Kernel.__send__("sys"+"tem", "rm x")'""",
    """perl -e '&{"POSIX::sys"."tem"}("rm x")' -MPOSIX""",
    """perl -e 'my $m = "sys"."tem"; main->can($m)'""",
    # a module that runs a code string, a frame's globals, a stream loaded as code
    '''python3 -c "import timeit; timeit.timeit('__import__(\\"o\\"+\\"s\\")')"''',
    '''python3 -c "import sys; sys._getframe().f_globals['__builtins__']"''',
    """node -e 'require("module")._load("child_" + "process")'""",
    """echo 'require("child_process").execSync("rm x")' | node -e 'require("/dev/stdin")'""",
    """ruby -e 'load "/dev/stdin"'""", """php -r '$o->{"sys"."tem"}("rm x");'""",
    """lua -e 'package.loaded["o".."s"].execute("rm x")'""",
    """bun --preload 'data:text/javascript,require("child_process").execSync("rm x")' e.js""",
    # code after a long option whose value is a separate word (it is not the script)
    """node --title x -e 'require("child_process").execSync("rm x")'""",
    """python3 --check-hash-based-pycs never -c 'import os; os.system("rm x")'""",
]


@pytest.mark.parametrize("command", DYNAMIC)
def test_inline_code_that_may_reach_a_program_is_asked_and_says_why(command: str) -> None:
    check_under_deny_rm(command, "ask")
    reason = shell_verdict(DENY_RM, command).reason
    assert "code runs commands" in reason or "made at run time" in reason, reason
    assert reason.endswith("which the deny and ask rules cannot check")


@pytest.mark.parametrize("command", [
    "python3 -c 'print(1+1)'", "node -e 'console.log(1)'", "python -m json.tool x.json",
    "python -m pytest -q", "python3 -m http.server 8000", "python3 -m venv .venv",
    "python3 -m timeit '\"-\".join(str(n) for n in range(100))'",
    "python3 -c \"import os; print(os.environ.get('HOME'))\"",
    "python3 -c \"d = {'a': 1}; print(d['a'])\"",
    "python3 -c \"import sys; print(sys.argv[1:])\" a",
    "node --require ./setup.js e.js", "node --import ./register.mjs e.js",
    "node --inspect e.js", "node --title x --trace-warnings e.js",
    "node --import 'data:text/javascript,console.log(1)' e.js",
    "node -e 'const a = [1, 2]; console.log(a[0])'",
    "lua -e 'local t = {1, 2}; print(t[1])'",
    "lua -e 'local t = {a = 1}; for k, v in pairs(t) do print(k, t[k]) end'",
    "lua -e 'package.path = \"./?.lua;\" .. package.path; print(1)'",
    "php -r 'echo strtoupper(\"a\") . \"b\";'", "php -r '$a = [1, 2]; echo $a[0];'",
    "ruby -e 'File.open(\"x.json\") { |f| puts f.read }'", "ruby -e 'puts \"hi #{1 + 1}\"'",
    "perl -e 'print \"you can go\\n\"'", "perl -e 'print 5 & 3'",
    "perl -e 'my %h = (a => 1); print $h{a}'",
])
def test_everyday_one_liners_still_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


def test_a_module_that_reads_commands_from_a_pipe_is_asked() -> None:
    reason = shell_verdict(DENY_RM, "echo 'import os' | python3 -m code").reason
    assert "reads from its standard input" in reason
    assert action_under_deny_rm("python3 -m pdb -c c src/a.py") == "run"
