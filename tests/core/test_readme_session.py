"""The README's first session can be pasted as it is, against the real `manage.py serve` (issue 28).

It used to say `brd_...`, `prf_...` and `cnt_...` with no way to get the real ids; now each
command keeps the ids it needs in a shell variable. This test takes the README's own code
blocks of the first session (the brand, logo, profile, posting times and generation; then
approve, schedule and publish now), changes nothing but the server's address, runs them in
bash from a folder laid out like a checkout (var/demo-key.txt, docs/logo.png) against serve on
the embedded default, and checks what they did through the API.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time

import pytest
import requests

from tests.core.test_serve import ROOT, Serve
from tests.live import free_port

README = ROOT / "README.md"


def session_blocks() -> list[str]:
    """The first session's two `sh` blocks, as the README writes them."""
    text = README.read_text()
    section = text[text.index("## A first session") :]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    first = blocks[0]
    then = next(b for b in blocks if b.startswith("# (in the shell of the first session"))
    return [first, then]


def test_the_session_uses_no_placeholder_and_every_variable_is_set_before_it_is_used():
    script = "\n".join(session_blocks())
    assert not re.search(r"\b(brd|prf|cnt)_\.\.\.", script), "a placeholder id is left"
    set_at = {m.group(1): m.start() for m in re.finditer(r"^\s*(?:export )?(\w+)=", script, flags=re.M)}
    for m in re.finditer(r"\$(BRAND|PROFILE|CONTENT|WHEN|PF|H)\b", script):
        assert m.group(1) in set_at and set_at[m.group(1)] < m.start(), f"${m.group(1)} used before it is set"
    assert subprocess.run(["bash", "-n"], input=script, text=True, check=False).returncode == 0


@pytest.fixture
def serve(tmp_path):
    s = Serve(tmp_path / "var", free_port()).prepare()
    s.start()
    yield s
    s.stop()


def test_the_readme_first_session_runs_as_pasted_against_serve(serve, tmp_path):
    home = tmp_path / "checkout"
    (home / "var").mkdir(parents=True)
    (home / "docs").mkdir()
    (home / "var" / "demo-key.txt").write_text(serve.key + "\n")
    shutil.copy(ROOT / "docs" / "logo.png", home / "docs" / "logo.png")
    first, then = session_blocks()
    assert "http://127.0.0.1:8000" in first
    script = "\n".join(
        [
            first.replace("http://127.0.0.1:8000", serve.base, 1),
            then,
            'echo; echo "IDS $BRAND $PROFILE $CONTENT"',
        ]
    )
    done = subprocess.run(
        ["bash", "-c", script], cwd=home, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.search(r"^IDS (\S+) (\S+) (\S+)$", done.stdout, flags=re.M)
    assert found, done.stdout + done.stderr
    brand, profile, content = found.groups()
    assert brand.startswith("brd_") and profile.startswith("prf_") and content.startswith("cnt_"), done.stdout
    assert '"error"' not in done.stdout, done.stdout  # no command was refused

    headers = {"Authorization": f"Bearer {serve.key}"}

    def get(path: str) -> dict:
        answer = requests.get(f"{serve.base}/v1{path}", headers=headers, timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.json()

    assert get(f"/brands/{brand}")["name"] == "Sunrise Coffee"
    assert get(f"/profiles/{profile}")["settings"]["postingTimes"] == ["09:00", "18:30"]
    deadline = time.monotonic() + 120
    while (item := get(f"/content/{content}"))["status"] != "published":
        assert time.monotonic() < deadline, item
        time.sleep(1)
    assert item["brandId"] == brand
    assert [(p["profileId"], p["status"]) for p in item["publications"]] == [(profile, "published")]
