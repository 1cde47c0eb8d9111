"""Write .github/CODEOWNERS from ``[hub] maintainers`` in data/hub.toml (standard library only).

    python .github/codeowners.py            # rewrite .github/CODEOWNERS
    python .github/codeowners.py --check    # exit 1 when it differs from what hub.toml says

Every path of the repository is owned by the hub's maintainers except the submission areas, which
have no owner: the `validate` check judges those. tests/repo/test_workflows.py runs ``--check`` and
keeps the areas in step with generator/submissions/paths.py and the validate workflow.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

# The submission areas: forecasts, bets, commitments, model metadata and oracle answers (unowned).
SUBMISSION_AREAS = ("/data/forecasts", "/data/bets", "/data/commitments", "/data/models", "/data/oracle/*/forecasts")
# A GitHub login, an @org/team, or an e-mail address (the three forms CODEOWNERS accepts).
_OWNER = re.compile(
    r"^@?(?:[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"
    r"(?:/[A-Za-z0-9][A-Za-z0-9_.-]*)?|[^@\s]+@[^@\s]+\.[^@\s]+)$"
)

HEADER = """\
# Generated from [hub] maintainers in data/hub.toml by .github/codeowners.py. Do not edit by hand:
# change data/hub.toml, then run `python .github/codeowners.py`.
#
# Every path needs a hub maintainer's review (with "Require review from Code Owners" on for main):
# the configuration, the workflows, the code, site_src/ (its hooks run in the nightly with a write
# token), the tests, the root files and every ledger. The submission areas at the end have no
# owner: the validate check judges them (names, deadlines, the author maintains the model).
"""


def owners(hub_toml: Path) -> list[str]:
    """The maintainers listed in hub.toml, each as CODEOWNERS writes it (@login, @org/team, e-mail)."""
    hub = tomllib.loads(hub_toml.read_text(encoding="utf-8")).get("hub", {})
    listed = hub.get("maintainers", [])
    if not isinstance(listed, list):
        raise ValueError(f"{hub_toml}: [hub] maintainers must be a list of GitHub logins or @org/team names")
    out = []
    for value in listed:
        if not isinstance(value, str) or not _OWNER.match(value):
            raise ValueError(f"{hub_toml}: [hub] maintainers: {value!r} is not a GitHub login, @org/team or e-mail")
        out.append(value if value.startswith("@") or "@" in value else f"@{value}")
    return out


def render(maintainers: list[str]) -> str:
    if maintainers:
        default = f"* {' '.join(maintainers)}\n"
    else:
        default = (
            "# No maintainers are set: list them in [hub] maintainers in data/hub.toml and run this script.\n"
            "# Until then no review is required by this file.\n*\n"
        )
    return HEADER + "\n" + default + "\n" + "".join(f"{area}\n" for area in SUBMISSION_AREAS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub", type=Path, default=Path(__file__).resolve().parents[1], help="the repository root")
    parser.add_argument("--check", action="store_true", help="exit 1 when .github/CODEOWNERS is out of date")
    args = parser.parse_args(argv)
    target = args.hub / ".github" / "CODEOWNERS"
    try:
        text = render(owners(args.hub / "data" / "hub.toml"))
    except (OSError, ValueError, tomllib.TOMLDecodeError) as exc:
        print(f"codeowners: {exc}", file=sys.stderr)
        return 2
    if args.check:
        current = target.read_text(encoding="utf-8") if target.is_file() else ""
        if current != text:
            print(f"{target} does not match [hub] maintainers in data/hub.toml; run python .github/codeowners.py", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
