# SPDX-License-Identifier: Apache-2.0
"""python -m xpose.bench on the CPU, on tiny cases: the table, the JSON, the checks, bad case files."""

import json

import pytest

from xpose import bench

TINY = [{"dims": [6, 7, 8], "perm": [2, 0, 1], "dtype": "f32"},
        {"name": "u8 matrix", "dims": [33, 65], "perm": [1, 0], "dtype": "u8"},
        {"dims": [2, 3, 2, 3, 2], "perm": [4, 3, 2, 1, 0], "dtype": "bool"}]


def write(tmp_path, cases):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    return str(path)


def test_cases_from_a_file_are_timed_and_checked(tmp_path, capsys):
    out = tmp_path / "run.json"
    status = bench.main(["--device", "cpu", "--cases", write(tmp_path, TINY), "--warmup", "1", "--repeat", "2",
                         "--no-jax", "--json", str(out)])
    printed = capsys.readouterr().out
    assert status == 0
    assert "u8 matrix" in printed and "Verification: PASSED" in printed
    report = json.loads(out.read_text())
    assert [row["dims"] for row in report["rows"]] == [case["dims"] for case in TINY]
    for row in report["rows"]:
        assert row["check"] == "PASSED"
        for label in ("copy", "xpose", "xpose out=", "numpy"):
            figures = row["results"][label]
            assert figures["runs"] == 2 and 0 < figures["min_s"] <= figures["median_s"] <= figures["max_s"]


def test_overhead_measurement_reports_both_paths(tmp_path, capsys):
    out = tmp_path / "overhead.json"
    assert bench.main(["--device", "cpu", "--overhead", "--overhead-iterations", "20", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())["overhead"]
    assert figures["bytes"] == 1 << 20
    assert figures["cpp_execute_us"] > 0 and figures["python_out_us"] > 0 and figures["python_alloc_us"] > 0
    assert "C++ Plan::execute" in capsys.readouterr().out


@pytest.mark.parametrize("cases, message", [
    ({"dims": [2]}, "expected a JSON list"),
    ([{"dims": [2, 3], "perm": [1, 0]}], "needs \"dims\", \"perm\" and \"dtype\""),
    ([{"dims": [2, 3], "perm": [0, 0], "dtype": "f32"}], "is not a permutation"),
    ([{"dims": [2, -3], "perm": [1, 0], "dtype": "f32"}], "non-negative"),
    ([{"dims": [2, 3], "perm": [1, 0], "dtype": "f31"}], "unknown dtype 'f31'"),
])
def test_bad_case_files_are_usage_errors(tmp_path, capsys, cases, message):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--device", "cpu", "--cases", write(tmp_path, cases)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_missing_case_file_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--device", "cpu", "--cases", str(tmp_path / "absent.json")])
    assert exit_info.value.code == 2
    assert "absent.json" in capsys.readouterr().err
