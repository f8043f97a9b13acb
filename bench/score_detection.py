"""Benchmark: detection mAP@0.5, our pure function vs pycocotools, same inputs, same run.

    python bench/score_detection.py [--images 1000] [--boxes 20] [--classes 3] [--repeat 3]

Builds a seeded synthetic dataset (per image 0-8 ground-truth boxes over `--classes` classes,
a third of the images negative, `--boxes` detections: jittered copies of true boxes and random
false positives, scores rounded to 2 decimals so ties occur), then times, best of `--repeat`:
  pycocotools  COCO() + loadRes + COCOeval(bbox) evaluate + accumulate, AP at IoU 0.5,
               area "all", maxDets 100 (automedbench.metrics.coco_reference.coco_map)
  ours         automedbench.metrics.detection_map.mean_average_precision on the same arrays
and checks the two values are IDENTICAL (==, not approximately), then prints the speed ratio.
Needs pycocotools (`pip install pycocotools`, in the [test] extra).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from automedbench.metrics.coco_reference import coco_map
from automedbench.metrics.detection_map import mean_average_precision


def make_data(n_images: int, n_boxes: int, n_classes: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    gts, dts = [], []
    for i in range(n_images):
        n_gt = 0 if i % 3 == 0 else int(rng.integers(1, 9))
        xy = rng.uniform(0, 900, (n_gt, 2))
        wh = rng.uniform(10, 120, (n_gt, 2))
        g = np.column_stack([rng.integers(0, n_classes, n_gt), xy, xy + wh])
        d = np.zeros((n_boxes, 6))
        for k in range(n_boxes):
            if n_gt and rng.random() < 0.6:
                src = g[rng.integers(n_gt)]
                jit = rng.normal(0, 0.12, 4) * np.r_[src[3] - src[1], src[4] - src[2]].repeat(2)[[0, 2, 1, 3]]
                box = src[1:] + jit
                box[2:] = np.maximum(box[2:], box[:2] + 1)
                cls = src[0] if rng.random() < 0.9 else rng.integers(n_classes)
            else:
                p = rng.uniform(0, 900, 2)
                box = np.r_[p, p + rng.uniform(10, 120, 2)]
                cls = rng.integers(n_classes)
            d[k] = (cls, round(float(rng.random()), 2), *box)
        gts.append(g)
        dts.append(d)
    return gts, dts


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t)
    return best, value


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=1000)
    ap.add_argument("--boxes", type=int, default=20)
    ap.add_argument("--classes", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    gts, dts = make_data(args.images, args.boxes, args.classes)
    n_gt = sum(len(g) for g in gts)
    print(f"{args.images} images, {args.images * args.boxes} detections, {n_gt} ground-truth boxes, "
          f"{args.classes} classes; best of {args.repeat}")
    t_coco, v_coco = best_of(lambda: coco_map(gts, dts, args.classes), args.repeat)
    t_ours, v_ours = best_of(lambda: mean_average_precision(gts, dts, args.classes).map, args.repeat)
    print(f"pycocotools  {t_coco:8.3f} s   mAP@0.5 = {v_coco!r}")
    print(f"ours         {t_ours:8.3f} s   mAP@0.5 = {v_ours!r}")
    same = v_ours == v_coco
    print(f"identical: {same}   speed ratio (pycocotools / ours): {t_coco / t_ours:.2f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
