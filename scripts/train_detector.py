"""Train the YOLO tile localiser offline, on CPU or a CUDA GPU (ultralytics, model built from yaml, no downloads).

    python -m scripts.train_detector --name bin512 --mode binary --imgsz 512 --epochs 30 [--hours 0.5]
    python -m scripts.train_detector --name bin512 --resume   # continue from runs/detector/NAME/weights/last.pt
    python -m scripts.train_detector --name bin512 --export models/tile_locator.onnx   # head split, see below

--mode binary : 2 classes (0 = face-up tile, 1 = face-down tile); the crop classifier gives the kind (two-stage).
--mode tiles  : 43 classes (tile ids 0..41, 42 = back), one stage.
--export writes the ONNX model with its head split (scripts/runtime_graph.py), as the runtime wants it.
Data: synthetic scenes (mjtable.datasets.generate) + the real riichi photos' train split (prepare_detector_data.py).
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from mjtable.models.graph import runtime_graph
from mjtable.models.training import offline_ultralytics, resolve_sources

ROOT = Path(__file__).resolve().parent.parent


THREADS = 2


def _set_threads(trainer):
    """ultralytics pins torch to 1 thread on a 2-core machine; training is ~1.5x faster with 2."""
    import torch
    torch.set_num_threads(THREADS)


def write_data_yaml(path: Path, mode: str, train: list[str], val: list[str]) -> Path:
    from mjtable.scoring import tiles as T
    if mode == "binary":
        names = ["tile", "back"]
    else:
        names = [T.code(i) for i in range(T.N_CLASSES)]
    lines = ["train:"] + [f"  - {p}" for p in train] + ["val:"] + [f"  - {p}" for p in val]
    lines += [f"nc: {len(names)}", "names: [" + ", ".join(f"'{n}'" for n in names) + "]"]
    path.write_text("\n".join(lines) + "\n")
    return path


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", required=True)
    ap.add_argument("--mode", choices=("binary", "tiles"), default="binary")
    ap.add_argument("--model", default="yolo11n.yaml")
    ap.add_argument("--imgsz", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--hours", type=float, default=None, help="time budget (overrides epochs)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--data", default=str(ROOT / "data"))
    ap.add_argument("--synth", nargs="*", default=["synth/train"])
    ap.add_argument("--real-repeat", type=int, default=2, help="list the real train split this many times")
    ap.add_argument("--val", nargs="*", default=["synth/test", "real/heldout"])
    ap.add_argument("--fraction", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--init", type=Path, default=None, help="start from weights of an earlier run of ours (.pt)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--export", type=Path, default=None, help="export best.pt of --name to this ONNX path and exit")
    ap.add_argument("--project", default=str(ROOT / "runs" / "detector"))
    ap.add_argument("--threads", type=int, default=2, help="torch threads (1 when another training shares the CPU)")
    ap.add_argument("--device", default="cpu", help="cpu, or a CUDA device index where one is at hand (0)")
    ap.add_argument("--lr0", type=float, default=None,
                    help="AdamW at this learning rate (default: ultralytics chooses), e.g. a gentle fine-tune")
    ap.add_argument("--cache", choices=("none", "ram"), default="none", help="keep the decoded images in memory")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    global THREADS
    THREADS = a.threads

    offline_ultralytics(ROOT / ".yolo")
    from ultralytics import YOLO

    run_dir = Path(a.project) / a.name
    if a.export:
        w = run_dir / "weights" / "last.pt"      # val=False during training: best.pt is not meaningful
        model = YOLO(str(w))
        out = model.export(format="onnx", imgsz=a.imgsz, opset=17, simplify=False, dynamic=False, device="cpu")
        a.export.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(out, a.export)
        runtime_graph(a.export, a.export)    # head split: the runtime decodes boxes of sure anchors only
        print(f"exported {w} -> {a.export} ({a.export.stat().st_size / 1e6:.1f} MB, head split)")
        return 0
    if a.resume:
        model = YOLO(str(run_dir / "weights" / "last.pt"))
        model.add_callback("on_train_epoch_start", _set_threads)
        model.train(resume=True)
        return 0

    data = Path(a.data).resolve()       # ultralytics reads relative paths in the yaml from its own folder
    base = data / "bin" if a.mode == "binary" else data
    train = resolve_sources(base, list(a.synth) + ["real/train"] * a.real_repeat, data / "lists", a.name + "_train")
    val = resolve_sources(base, a.val, data / "lists", a.name + "_val")
    yaml = write_data_yaml(data / f"{a.name}.yaml", a.mode, train, val)
    model = YOLO(str(a.init) if a.init else a.model)
    model.add_callback("on_train_epoch_start", _set_threads)
    flips = 0.5 if a.mode == "binary" else 0.0   # a mirrored face is not a tile
    kw = dict(data=str(yaml), imgsz=a.imgsz, epochs=a.epochs, batch=a.batch, device=a.device, workers=a.workers,
              project=a.project, name=a.name, exist_ok=True, amp=False, plots=False, val=False,
              fliplr=flips, flipud=0.0, degrees=0.0, mosaic=1.0, close_mosaic=max(1, a.epochs // 6),
              pretrained=bool(a.init), fraction=a.fraction, save_period=1, patience=1000, verbose=False,
              cache="ram" if a.cache == "ram" else False, warmup_epochs=0.5 if a.init else 3.0)
    if a.hours:
        kw["time"] = a.hours
    if a.lr0:
        kw.update(optimizer="AdamW", lr0=a.lr0)
    model.train(**kw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
