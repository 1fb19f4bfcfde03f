"""The progress line of serpsim._jobs (what a call shows on stderr without tqdm)."""

from serpsim._jobs import line_text


def test_progress_line_shows_time_while_preparing_and_counts_after():
    # Expected strings written by hand from the documented layout.
    assert line_text("simulating users", "units", 0, None, "", 2.4) == "simulating users: 2 s"
    assert line_text("simulating users", "units", 3, None, "", 2.4) == "simulating users: 3 units"
    assert line_text("simulating users", "units", 0, 8, "", 2.4) == "simulating users: 0/8 units (0 %)"
    assert line_text("fitting dbn", "iterations", 5, 20, "ll -0.3", 1.0) == "fitting dbn: 5/20 iterations (25 %); ll -0.3"


def test_progress_line_groups_thousands_and_never_passes_the_total():
    # Hand-written: Python's "," format groups thousands; a count past its total is shown at
    # the total (the posterior's "900 of 800 sweeps" came from a total without the prior's
    # Monte-Carlo EM sweeps; test_clicks checks the count itself).
    assert line_text("simulating users", "sessions", 12000, 40000, "", 1.0) == "simulating users: 12,000/40,000 sessions (30 %)"
    assert line_text("posterior of dbn", "sweeps", 900, 800, "", 1.0) == "posterior of dbn: 800/800 sweeps (100 %)"
