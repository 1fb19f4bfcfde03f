"""Writes a one-hour monocular 1000 Hz EyeLink ASC file of reading-like gaze (fixations of
150-400 ms with 2 px noise, an EFIX line after each) for the throughput measurement in
docs/performance.md. Usage: python3 analysis/study/make_big_asc.py /tmp/hour.asc"""
import random, sys

random.seed(5)
out = open(sys.argv[1], "w")
out.write("** CONVERTED FROM synthetic hour\nMSG\t1 DISPLAY_COORDS 0 0 1279 1023\n")
out.write("START\t1 \tLEFT\tSAMPLES\tEVENTS\nSAMPLES\tGAZE\tLEFT\tRATE\t1000.00\tTRACKING\tCR\tFILTER\t2\n")
t, lines = 1, []
while t <= 3_600_000:
    x, y, n = random.uniform(100, 1180), random.uniform(100, 900), random.randint(150, 400)
    start = t
    for _ in range(n):
        lines.append("%d\t%7.1f\t%7.1f\t%7.1f\t...\n" % (t, x + random.uniform(-2, 2), y + random.uniform(-2, 2), 800.0))
        t += 1
    lines.append("EFIX L   %d\t%d\t%d\t%7.1f\t%7.1f\t    800\n" % (start, t - 1, n, x, y))
    if len(lines) > 100000:
        out.write("".join(lines)); lines = []
out.write("".join(lines))
out.write("END\t%d \tSAMPLES\tEVENTS\tRES\t  37.00\t  37.00\n" % (t - 1))
