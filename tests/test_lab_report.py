"""The design lab's HTML report: one self-contained page whose plots are embedded PNG images."""

from __future__ import annotations

import base64
import html.parser
import shutil
import subprocess
import sys

import pytest

from trickkit.cli.main import main

PNG = b"\x89PNG\r\n\x1a\n"


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.images, self.links = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        for key in ("href", "src"):
            if key in attrs and not attrs[key].startswith("data:"):
                self.links.append(attrs[key])


def _parse(path):
    page = _Page()
    text = path.read_text(encoding="utf-8")
    page.feed(text)
    return text, page


def _decoded_pngs(page):
    out = []
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        data = base64.b64decode(src.split(",", 1)[1], validate=True)
        assert data.startswith(PNG)
        out.append(data)
    return out


@pytest.fixture(scope="module")
def compare_report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    path = tmp_path_factory.mktemp("report") / "out.html"
    assert (
        main(["compare", "sarkophag@hand_size=3", "sarkophag@hand_size=4", "--games", "6", "--report", str(path)]) == 0
    )
    return path


def test_compare_report_is_self_contained_with_three_plots(compare_report, capsys):
    text, page = _parse(compare_report)
    assert text.startswith("<!DOCTYPE html>") and page.tags[:2] == ["html", "head"]
    assert page.links == []  # nothing fetched from anywhere: the page stands alone
    assert page.tags.count("table") == 4 and "paired differences from sarkophag@hand_size=3" in text
    pngs = _decoded_pngs(page)
    assert len(pngs) == 3  # score distributions, seat advantage, game length
    assert all(len(p) > 2000 for p in pngs)
    for caption in ("score distributions per seat", "seat advantage", "game length in actions"):
        assert caption in text


def test_simulate_report_has_seat_advantage_and_coverage(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "sim.html"
    assert (
        main(
            [
                "simulate",
                "sarkophag",
                "--games",
                "6",
                "--param",
                "hand_size=4",
                "--coverage",
                "--report",
                str(path),
                "--csv",
                str(tmp_path / "sim.csv"),
                "--no-progress",
            ]
        )
        == 0
    )
    text, page = _parse(path)
    assert len(_decoded_pngs(page)) == 3
    assert "Rule coverage" in text and "branches and effects" in text and "Never fired" in text
    assert "every seat equal? chi-square" in text
    lines = (tmp_path / "sim.csv").read_text().splitlines()
    assert lines[0] == "variant,seat,statistic,estimate,low,high,games"
    assert any(line.startswith("sarkophag,3,win_rate,") for line in lines)


def test_report_without_matplotlib_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    code = main(["compare", "sarkophag", "--games", "2", "--report", str(tmp_path / "x.html")])
    _, err = capsys.readouterr()
    assert code == 2
    assert "pip install 'trickkit[lab]'" in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()  # refused before any game is played


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_report_opens_in_headless_chromium(compare_report):
    run = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", f"file://{compare_report}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    page = _Page()
    page.feed(run.stdout)  # the DOM as the browser built it from the file alone
    assert len(page.images) == 3 and page.tags.count("table") == 4 and page.tags.count("figure") == 3
    assert "seat advantage" in run.stdout
