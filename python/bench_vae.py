# SPDX-License-Identifier: MIT
"""Issue 18's model test on a GPU: the SD3.5 and FLUX.2 VAE decoders (models/vae.py,
fixed-seed weights), fp16 and bf16, NCHW and channels_last, run with PyTorch's convolutions
(cuDNN, torch.backends.cudnn.benchmark on: its best algorithm per shape) and after
rdnaconv.torch.convert(); prints the max and mean pixel difference in /255 after the
[-1, 1] -> [0, 255] mapping and the end-to-end time of both, each replayed from a CUDA graph
(median of 7 replays). Then ResNet-50 (torchvision's architecture, fixed-seed weights, batch
statistics set from one random batch): top-1 agreement of the logits and the largest
difference relative to the largest logit.
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
    ap.add_argument("--models", default="sd35,flux2,resnet50")
    ap.add_argument("--batch", type=int, default=32, help="ResNet-50's batch")
    a = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    models = a.models.split(",")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False  # the float32 decoder is the truth: no TF32 in it
    print("| model | dtype | layout | max diff /255 | mean diff /255 | cuDNN vs fp32: max / mean "
          "| rdnaconv vs fp32: max / mean | cuDNN ms | rdnaconv ms | speedup |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, make in (("sd35", vae.sd35_decoder), ("flux2", vae.flux2_decoder)):
        if name not in models:
            continue
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
                    # the truth: the float32 decoder (cuDNN, no TF32) on the same (rounded) z
                    f32 = copy.deepcopy(base).to("cuda").to(memory_format=fmt)
                    truth = to_pixels(f32(z.float()))
                    del f32
                    p_ref, p_mine = to_pixels(ref(z)), to_pixels(mine(z))
                    d = (p_ref - p_mine).abs()
                    d_ref, d_mine = (p_ref - truth).abs(), (p_mine - truth).abs()
                    t_ref = graph_time_ms(ref, z)
                    t_mine = graph_time_ms(mine, z)
                falls = sum(s["fallback"] for s in rt.stats(mine).values())
                assert falls == 0, f"{falls} calls fell back"
                print(f"| {name} {a.size} | {str(dtype)[6:]} | {lname} | {d.max().item():.0f} | "
                      f"{d.mean().item():.3f} | {d_ref.max().item():.0f} / {d_ref.mean().item():.3f} | "
                      f"{d_mine.max().item():.0f} / {d_mine.mean().item():.3f} | {t_ref:.2f} | {t_mine:.2f} | {t_ref / t_mine:.2f} |",
                      flush=True)

    if "resnet50" in models:
        resnet50(a.batch)


def resnet50(batch: int) -> None:
    import torchvision

    torch.manual_seed(0)
    base = torchvision.models.resnet50(weights=None).cuda()
    # BatchNorm's running statistics from one random batch (eval mode then keeps activations at
    # unit scale through the 16 blocks, as trained weights would; fp16 does not overflow)
    for m in base.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None  # cumulative average: one batch sets the statistics
    x32 = torch.randn(batch, 3, 224, 224, device="cuda", generator=torch.Generator(
        device="cuda").manual_seed(2))
    with torch.no_grad():
        base.train()(x32)
    base.eval()
    print()
    print("| model | dtype | layout | top-1 agree | max |diff| / max |logit| | cuDNN ms | "
          "rdnaconv ms | speedup |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for dtype in (torch.float16, torch.bfloat16):
        for fmt, lname in ((torch.contiguous_format, "nchw"), (torch.channels_last, "nhwc")):
            ref = copy.deepcopy(base).to(dtype).to(memory_format=fmt)
            mine = copy.deepcopy(ref)
            report = rt.convert(mine)
            assert not report.skipped, str(report)
            x = x32.to(dtype).contiguous(memory_format=fmt)
            with torch.inference_mode():
                a, b = ref(x).float(), mine(x).float()
                t_ref = graph_time_ms(ref, x)
                t_mine = graph_time_ms(mine, x)
            agree = (a.argmax(1) == b.argmax(1)).float().mean().item()
            rel = ((a - b).abs().max() / a.abs().max()).item()
            falls = sum(s["fallback"] for s in rt.stats(mine).values())
            assert falls == 0, f"{falls} calls fell back"
            print(f"| resnet50 224 N{batch} | {str(dtype)[6:]} | {lname} | {agree:.4f} | "
                  f"{rel:.2e} | {t_ref:.2f} | {t_mine:.2f} | {t_ref / t_mine:.2f} |", flush=True)


if __name__ == "__main__":
    main()
