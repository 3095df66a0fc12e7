# SPDX-License-Identifier: MIT
"""Issue 18's model test on a GPU (not yet run: written 2026-12-03, no CUDA PyTorch here):
the SD3.5 and FLUX.2 VAE decoders (models/vae.py, fixed-seed weights), fp16 and bf16, NCHW and
channels_last, run with PyTorch's convolutions (cuDNN) and after rdnaconv.torch.convert();
prints the max and mean pixel difference in /255 after the [-1, 1] -> [0, 255] mapping and the
end-to-end time of both, each replayed from a CUDA graph (median of 7 replays).
    cd python && python3 setup.py build_ext --inplace && python3 bench_vae.py [--size 1024]"""
import argparse
import copy
import statistics

import torch

import rdnaconv.torch as rt
from models import vae


def to_pixels(y: torch.Tensor) -> torch.Tensor:
    return ((y.float().clamp(-1, 1) + 1) * 127.5).round()


def graph_time_ms(fn, x, reps: int = 7) -> float:
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn(x)  # warm-up: packs the weights, picks cuDNN's algorithms
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn(x)
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1024, help="image side (latent = size / 8)")
    a = ap.parse_args()
    print("| model | dtype | layout | max diff /255 | mean diff /255 | cuDNN ms | rdnaconv ms | speedup |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for name, make in (("sd35", vae.sd35_decoder), ("flux2", vae.flux2_decoder)):
        base = vae.init_(make()).eval()
        for dtype in (torch.float16, torch.bfloat16):
            for fmt, lname in ((torch.contiguous_format, "nchw"), (torch.channels_last, "nhwc")):
                ref = copy.deepcopy(base).to("cuda", dtype).to(memory_format=fmt)
                mine = copy.deepcopy(ref)
                report = rt.convert(mine)
                assert not report.skipped, str(report)
                g = torch.Generator(device="cuda").manual_seed(1)
                z = torch.randn(1, ref.conv_in.in_channels, a.size // 8, a.size // 8, device="cuda",
                                generator=g).to(dtype).contiguous(memory_format=fmt)
                with torch.inference_mode():
                    d = (to_pixels(ref(z)) - to_pixels(mine(z))).abs()
                    t_ref = graph_time_ms(ref, z)
                    t_mine = graph_time_ms(mine, z)
                falls = sum(s["fallback"] for s in rt.stats(mine).values())
                assert falls == 0, f"{falls} calls fell back"
                print(f"| {name} {a.size} | {str(dtype)[6:]} | {lname} | {d.max().item():.0f} | "
                      f"{d.mean().item():.3f} | {t_ref:.2f} | {t_mine:.2f} | {t_ref / t_mine:.2f} |")


if __name__ == "__main__":
    main()
