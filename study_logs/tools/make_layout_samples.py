#!/usr/bin/env python3
"""Write the hand-made sample files in public layouts that serpsim reads.

The real public files of these layouts (GraphCM's NCM/TianGong-ST demo logs, the Potsdam
Binge PVT gaze export) are not redistributed with serpsim: these are our own rows in the
same column layouts, written deterministically by this script (seed 20261123).

    python3 study_logs/tools/make_layout_samples.py   # from the repository root
"""
import random

rng = random.Random(20261123)

# --- NCM / TianGong-ST layout: session, query, [docs], [vtypes], [clicks] (TAB separated) ---
lines = []
queries = [798, 298, 799] + [1000 + i for i in range(24)]  # 27 distinct queries
order = queries[:15] + [queries[3]] + queries[15:]          # line 16 repeats a query -> 27 distinct in 28
order += [queries[0], queries[1]]                            # 30 lines, still 27 distinct
assert len(order) == 30 and len(set(order)) == 27
next_doc = 5000
clicks_left = {i: [] for i in range(30)}
clicks_left[15] = [1, 2]                                     # line 16: clicks on ranks 2 and 3
for i in rng.sample([i for i in range(1, 30) if i != 15], 8):  # 8 more single clicks -> 10
    clicks_left[i] = [rng.randrange(10)]
session = 460
for i, q in enumerate(order):
    if i and i % 4 == 0:
        session += 1
    if i == 0:
        docs = [2270, 2271, 4088] + [4100 + k for k in range(7)]
    else:
        docs = [next_doc + k for k in range(10)]
        next_doc += 10
    c = [1 if r in clicks_left[i] else 0 for r in range(10)]
    lines.append(f"{session}\t{q}\t{docs}\t{[1] * 10}\t{c}".replace("'", ""))
with open("study_logs/clicks/ncm_handmade_train.txt", "w") as f:
    f.write("\n".join(lines) + "\n")

# The label files of that layout carry a sixth column of relevance grades.
lines = []
for i, q in enumerate([232, 233, 234, 235, 236, 237, 238, 239]):
    docs = [440 + 10 * i + k for k in range(10)]
    grades = [rng.randrange(3) for _ in range(10)]
    lines.append(f"86\t{q}\t{docs}\t{[1] * 10}\t{[0] * 10}\t{grades}")
with open("study_logs/clicks/ncm_handmade_labels.txt", "w") as f:
    f.write("\n".join(lines) + "\n")

# --- Potsdam Binge PVT gaze export layout (EyeLink 1000 Hz columns), 29 samples ---
cols = ("trial_id,block_id,x_pix_eyelink,y_pix_eyelink,eyelink_timestamp,x_pix_pupilcore_interpolated,"
        "y_pix_pupilcore_interpolated,pupil_size_eyelink,target_distance,pupil_size_pupilcore_interpolated,"
        "pupil_confidence_interpolated,time_to_prev_bac,time_to_next_bac,prev_bac,next_bac")
rows = [cols]
t0 = 20480311
for k in range(29):
    x = round(812.0 + rng.uniform(-1.5, 1.5), 1)
    y = round(402.0 + rng.uniform(-1.2, 1.2), 1)
    pupil = float(1400 + rng.randrange(0, 40))
    rows.append(f"3.0,2.0,{x},{y},{t0 + k},{x - 21.4:.6f},{y + 77.9:.6f},{pupil},650.5,"
                f"{31.2 + k * 0.01:.4f},{0.81 - k * 0.002:.4f},{2000.0 + k},{900000.0 - k},0.021,0.019")
with open("study_logs/gaze/csv/pvt_layout_handmade.csv", "w") as f:
    f.write("\n".join(rows) + "\n")
