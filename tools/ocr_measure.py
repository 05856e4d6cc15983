"""rapidocr-onnxruntime 1.4.4 on the reading folder's two scans: seconds a page, text of page 1.

A developer's measurement, not a dependency: run it in a venv of its own (531 MB with onnxruntime and OpenCV):

    python3 -m venv /tmp/ocrvenv && /tmp/ocrvenv/bin/pip install rapidocr-onnxruntime==1.4.4 pypdfium2
    /tmp/ocrvenv/bin/python tools/ocr_measure.py SCAN.pdf [SCAN.pdf ...]

Each page is rendered by pdfium at scale 2 and read by the PP-OCRv4 models inside the wheel (nothing fetched).
"""
import sys, time, statistics
import numpy as np, pypdfium2 as pdfium
from rapidocr_onnxruntime import RapidOCR
t0 = time.perf_counter(); ocr = RapidOCR(); load = time.perf_counter() - t0
print(f"model load {load:.2f} s")
for path in sys.argv[1:]:
    pdf = pdfium.PdfDocument(path)
    n = len(pdf); per = []
    pages = range(min(n, 4))
    for i in pages:
        page = pdf[i]
        image = page.render(scale=2).to_numpy()
        t = time.perf_counter(); result, _ = ocr(image); per.append(time.perf_counter() - t)
        text = " ".join(r[1] for r in (result or []))
        if i == 0:
            print(path.rsplit('/',1)[-1], f"{n} pages; page 1 text ({len(text)} chars):\n", text[:900])
    print(f"  seconds a page over {len(per)} pages: median {statistics.median(per):.2f} (min {min(per):.2f}, max {max(per):.2f})")
