# SPDX-License-Identifier: MIT
"""python/crosscheck.py on small synthetic files: Google Benchmark's row names and time units,
errored rows, the join with bench_layers.py's records, the ratio and the 15% rule at its edges,
the tables, a file cut short."""
import json

import pytest

import crosscheck as cc


def gb_row(key, label_row, t, unit="us", label="", **extra):
    m, n, dt, lay, layer = key
    name = f"layer/{m}/N{n}/{dt}/{lay}/{layer}/{label_row}/iterations:1/manual_time"
    r = {"name": name, "run_name": name, "run_type": "iteration", "iterations": 1,
         "real_time": t, "cpu_time": 1e5, "time_unit": unit, "label": label, "mult": 1.0}
    r.update(extra)
    return r


K1 = ("resnet50_224", 1, "fp16", "nhwc", "conv1")
K2 = ("resnet50_224", 1, "fp16", "nhwc", "layer1.0.conv1")
K3 = ("resnet50_224", 1, "fp16", "nhwc", "layer1.0.conv2")
K4 = ("sd35_vae_512", 1, "bf16", "nchw", "enc.conv_in")
K5 = ("sd35_vae_512", 1, "bf16", "nchw", "dec.conv_out")


def cpp_doc():
    rows = [
        gb_row(K1, "router", 40.0, label="general"),
        gb_row(K1, "prepack", 1.6, label="prepack general"),
        gb_row(K1, "cudnn", 20.0, label="cudnn eng=12 k2=3 [5 of 9 timed]"),
        gb_row(K1, "cudnn-legacy", 30.0, label="cudnn-legacy IMPLICIT_GEMM (cudnnFind)"),
        gb_row(K2, "router", 10000.0, unit="ns", label="gemm1x1"),   # 10 us in ns
        gb_row(K2, "cudnn", 11500.0, unit="ns", label="cudnn eng=0"),
        gb_row(K3, "router", 0.01, unit="ms", label="nhwc3x3"),      # 10 us in ms
        gb_row(K3, "cudnn", 0.01, unit="ms", label="cudnn eng=7"),
        gb_row(K4, "router", 100.0, label="general"),
        gb_row(K4, "cudnn+res", 50.0, label="cudnn fused"),          # not the plain row
        dict(gb_row(K5, "cudnn", 0.0), error_occurred=True, error_message="no engine"),
        {"name": "model/resnet50_224/N1/fp16/nhwc/cudnn/graph/iterations:1/manual_time",
         "real_time": 500.0, "time_unit": "us"},
        dict(gb_row(K3, "cudnn", 99.0), run_type="aggregate", name=gb_row(K3, "cudnn", 0)["name"] + "_mean"),
    ]
    return {"context": {"date": "2026-12-07"}, "benchmarks": rows}


def torch_rec(key, cud, rdn, kernels=None, mult=1):
    m, n, dt, lay, layer = key
    return dict(model=m, batch=n, dtype=dt, layout=lay, layer=layer, mult=mult, shape_str="C K",
                cudnn_us=cud, rdnaconv_us=rdn, rdnaconv_method="general", cudnn_kernels=kernels)


def torch_doc():
    return {"meta": {"gpu": "NVIDIA H100"}, "records": [
        torch_rec(K1, 26.0, 40.4, kernels=["sm90_xmma_fprop", "nhwcToNchw"], mult=1),  # 1.30: outside
        torch_rec(K2, 10.0, 10.0, mult=5),   # C++ 11.5: 1.15 exactly -> within
        torch_rec(K3, 8.6, 11.7, mult=3),    # 10 / 8.6 = 1.163: outside; rdnaconv 1.17: outside
        torch_rec(K4, 70.0, 101.0),          # no plain cudnn row in C++: not joined
        torch_rec(("flux2_vae_1024", 1, "fp16", "nhwc", "x"), 5.0, 5.0),  # not in C++
    ]}


def test_parse_cpp_names_units_errors():
    rows, errors = cc.parse_cpp(cpp_doc())
    assert rows[K1]["cudnn"] == {"us": 20.0, "label": "cudnn eng=12 k2=3 [5 of 9 timed]"}
    assert rows[K2]["router"]["us"] == pytest.approx(10.0) and rows[K2]["cudnn"]["us"] == pytest.approx(11.5)
    assert rows[K3]["cudnn"]["us"] == pytest.approx(10.0)  # the aggregate row is not taken
    assert set(rows[K4]) == {"router", "cudnn+res"}
    assert K5 not in rows and errors == [(gb_row(K5, "cudnn", 0)["name"], "no engine")]
    assert all(k[0] != "model" for k in rows)
    with pytest.raises(ValueError, match="time_unit"):
        cc.parse_cpp({"benchmarks": [gb_row(K1, "cudnn", 1.0, unit="fortnight")]})


def test_differs_is_symmetric_at_the_edge():
    assert not cc.differs(11.5, 10.0, 0.15) and not cc.differs(10.0, 11.5, 0.15)
    assert cc.differs(11.6, 10.0, 0.15) and cc.differs(10.0, 11.6, 0.15)
    assert cc.differs(8.6, 10.0, 0.15)  # 10 / 8.6 = 1.163 (|ratio - 1| would say 14%)
    assert not cc.differs(3.0, 2.0, 0.5)


def test_crosscheck_ratios_fraction_and_engines():
    rows, _ = cc.parse_cpp(cpp_doc())
    res = cc.crosscheck(rows, cc.parse_torch(torch_doc()), 0.15)
    by = {e["layer"]: e for e in res["layers"]}
    assert sorted(by) == ["conv1", "layer1.0.conv1", "layer1.0.conv2"]
    assert by["conv1"]["ratio"] == pytest.approx(1.3) and not by["conv1"]["within"]
    assert by["layer1.0.conv1"]["within"] and by["layer1.0.conv1"]["ratio"] == pytest.approx(10 / 11.5)
    assert not by["layer1.0.conv2"]["within"]
    assert by["conv1"]["cpp_engine"] == "eng=12 k2=3 [5 of 9 timed]"
    assert by["conv1"]["torch_engine"] == "sm90_xmma_fprop + nhwcToNchw"
    assert by["layer1.0.conv2"]["torch_engine"] == "n/a"
    assert by["conv1"]["cpp_legacy_us"] == 30.0 and by["conv1"]["cpp_legacy_engine"].startswith("IMPLICIT_GEMM")
    assert by["conv1"]["rdnaconv_ratio"] == pytest.approx(40.4 / 40.0) and by["conv1"]["rdnaconv_within"]
    assert not by["layer1.0.conv2"]["rdnaconv_within"]
    s = res["summary"]
    assert (s["joined"], s["within"], s["outside"]) == (3, 1, 2)
    assert s["fraction_within"] == pytest.approx(1 / 3)
    assert s["ratio_geo"] == pytest.approx((1.3 * (10 / 11.5) * 0.86) ** (1 / 3))
    assert (s["only_cpp"], s["only_torch"]) == (0, 2)  # K4 (no plain cudnn row) and the flux row
    (p,) = res["per_set"]
    assert (p["layers"], p["within"]) == (3, 1)
    assert p["torch_cudnn_ms"] == pytest.approx((26 + 50 + 8.6 * 3) / 1e3)
    assert p["cpp_cudnn_ms"] == pytest.approx((20 + 57.5 + 30) / 1e3)
    wide = cc.crosscheck(rows, cc.parse_torch(torch_doc()), 0.5)
    assert wide["summary"]["within"] == 3


def test_markdown_lists_every_layer_outside(tmp_path):
    rows, _ = cc.parse_cpp(cpp_doc())
    res = cc.crosscheck(rows, cc.parse_torch(torch_doc()), 0.15)
    text = cc.markdown(res)
    assert "**1 (33.3%) within 15%**" in text
    assert "differ by more than 15% (2)" in text
    line = next(l for l in text.splitlines() if "| conv1 |" in l)
    assert "| 26.0 | 20.0 | 1.30 | eng=12 k2=3 [5 of 9 timed] | sm90_xmma_fprop + nhwcToNchw | 30.0 |" in line
    assert next(l for l in text.splitlines() if "| layer1.0.conv2 |" in l and "n/a" in l)
    assert "layer1.0.conv1 |" not in text.split("differ by more than")[1]  # within: not listed
    assert "two rdnaconv times differ by more than 15% (1)" in text


def test_main_writes_markdown_and_json_and_reads_a_cut_file(tmp_path):
    c, t = tmp_path / "bench.json", tmp_path / "torch.json"
    full = json.dumps(cpp_doc(), indent=2)
    c.write_text(full[:full.rindex('"name": "model/')])  # a run stopped mid-file
    t.write_text(json.dumps(torch_doc()))
    md, out = tmp_path / "x.md", tmp_path / "x.json"
    assert cc.main(["--cpp", str(c), "--torch", str(t), "--markdown", str(md), "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["summary"]["joined"] == 3 and res["cpp_errors"] == [gb_row(K5, "cudnn", 0)["name"] + ": no engine"]
    assert "Cross-check" in md.read_text() and "NVIDIA H100" in md.read_text()
    t.write_text(json.dumps({"records": [torch_rec(("x", 1, "fp16", "nhwc", "y"), 1.0, 1.0)]}))
    assert cc.main(["--cpp", str(c), "--torch", str(t)]) == 2  # nothing in common


def test_cpp_row_option_compares_with_the_legacy_row():
    rows, _ = cc.parse_cpp(cpp_doc())
    res = cc.crosscheck(rows, cc.parse_torch(torch_doc()), 0.15, cpp_row="cudnn-legacy")
    assert [e["layer"] for e in res["layers"]] == ["conv1"]
    assert res["layers"][0]["ratio"] == pytest.approx(26 / 30)
    assert res["layers"][0]["cpp_engine"] == "IMPLICIT_GEMM (cudnnFind)"
    assert res["summary"]["fraction_within"] == 0.0  # 30 / 26 = 1.154: outside 15%


def test_main_merges_several_torch_files(tmp_path):
    c = tmp_path / "bench.json"
    c.write_text(json.dumps(cpp_doc()))
    doc = torch_doc()
    t1, t2 = tmp_path / "a.json", tmp_path / "b.json"
    t1.write_text(json.dumps({"meta": doc["meta"], "records": doc["records"][:1]}))
    t2.write_text(json.dumps({"meta": {}, "records": doc["records"][1:]}))
    out = tmp_path / "x.json"
    assert cc.main(["--cpp", str(c), "--torch", str(t1), str(t2), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["summary"]["joined"] == 3
