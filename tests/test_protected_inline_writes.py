"""Inline code naming the git directory, a virtualenv or node_modules asks (round 31, test31c).

Before, in auto mode under a deny rule, ``awk 'BEGIN{print "x" > ".git/config"}'``, ``sed -n
'w .git/config' x``, ``python3 -c "import shutil; shutil.rmtree('.git')"`` and the same kind
in perl, node and ruby one-liners ran: the write was inside their code, where no word of the
command names the file. A string literal of inline code naming such a path is now judged as a
write of it, sed's ``w FILE`` too (docs/architecture.md §4); one-liners on project files run.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, check_under_deny_rm, deny_rm_cases, shell_verdict


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(denied=(), asked=(
    """awk 'BEGIN{print "x" > ".git/config"}'""",
    """awk '{print >> ".git/hooks/pre-commit"}' x""",
    """awk '{print > ".git/" "config"}' x""",
    """awk '{printf "%s", $0 > ("node_modules/x/index.js")}' x""",
    "awk -v out=.git/hooks/pre-commit '{print > out}' x",
    "sed -n 'w .git/config' x",
    "sed 's/a/b/w .git/hooks/pre-commit' x",
    "sed -e '1w .git/hooks/post-checkout' x",
    """python3 -c "open('.git/config','a').write('x')\"""",
    """python3 -c "import shutil; shutil.rmtree('.git')\"""",
    """python3 -c "open('.gi' + 't/config', 'a').write('x')\"""",
    """python3 -c "open('.venv/lib/python3.12/site-packages/x.pth', 'w').write('x')\"""",
    """perl -e 'open F, ">>.git/config"; print F "x"'""",
    """perl -e 'open(my $f, ">", ".git/hooks/pre-commit")'""",
    """node -e "require('fs').writeFileSync('.git/hooks/pre-commit', 'x')\"""",
    """node -e "require('fs').rmSync('node_modules', {recursive: true})\"""",
    """ruby -e "File.write('.git/config', 'x')\"""",
), still_run=(
    """awk '{print > "out.txt"}' x""", "awk -F, '{print $1}' x", "sed -n 'w out.txt' x",
    "sed -i 's/a/b/' x", "sed -n '1,5p' x", """python3 -c "print(open('x').read())\"""",
    """python3 -c "import sys; print(sys.version)\"""", "perl -ne 'print if /git/' x",
    """node -e "console.log(require('./package.json').name)\"""",
    """ruby -e "puts File.read('x')\"""",
    "awk '{print}' node_modules/x/package.json", "awk -v n=1 '{print n}' x",
    """git ls-files | awk -F/ '$1 == "node_modules"'""",
)))
def test_inline_code_naming_a_protected_path_is_judged_as_a_write(command: str,
                                                                  expected: str) -> None:
    check_under_deny_rm(command, expected)


def test_the_question_names_the_program_and_the_path() -> None:
    reason = shell_verdict(DENY_RM, """python3 -c "open('.git/config','a').write('x')\"""").reason
    assert "python3's inline code" in reason and ".git/config" in reason, reason
