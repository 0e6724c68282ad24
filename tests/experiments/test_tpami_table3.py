"""TPAMI Table III (``tpami_table3``): bundled data, a user file and a missing one."""

import numpy as np

from kgroups.experiments import tpami_table3

from tests._helpers import assert_png


def test_table3_quick_bundled_user_file_and_missing(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(1)
    path = tmp_path / "fertility_Diagnosis.txt"
    rows = [",".join(f"{v:.2f}" for v in rng.uniform(size=9)) + ("," + "NO"[i % 2])
            for i in range(40)]
    path.write_text("\n".join(rows) + "\n")
    monkeypatch.setenv("KGROUPS_DATA_FERTILITY", str(path))
    monkeypatch.delenv("KGROUPS_DATA_VEHICLE", raising=False)
    md = tpami_table3.run(tmp_path / "out", quick=True, trials=2)
    printed = capsys.readouterr().out
    assert "vehicle: not bundled: get xaa.dat" in printed
    lines = {line.split(" | ")[0].strip("| "): line for line in md.splitlines()
             if line.startswith("| ")}
    for name in ("iris", "wine", "seeds", "glass", "ionosphere", "fertility"):
        assert "not run" not in lines[name], name
    assert "not run" in lines["vehicle"] and "0.928" in lines["wine"]
    assert lines["fertility"].startswith("| fertility | 40 (100) | 2 (2) | 9 (9) |")
    assert_png(tmp_path / "out" / "fig7_violins.png")
