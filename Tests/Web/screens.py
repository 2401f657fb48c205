# SPDX-License-Identifier: GPL-3.0-or-later
"""The phone page's screenshots compared with the kept ones (Tests/Goldens/Web, made by this test on
Debian 12's Chromium at 360×740): a screenshot differs when more than `TOLERANCE` of its pixels are
more than `STEP` apart in a channel. That finds a broken page (a style sheet not applied, a section
missing or moved, text overflowing) and lets through a clock or a free-space figure in a line of
text. Two runs here differed in 0.00-0.01 % of the pixels; the card page against the pairing page
(both mostly white) in 10.5 %. A newer Chromium may draw text a pixel apart: WEB_GOLDEN_UPDATE=1
after looking at the new screenshots. A differing screenshot leaves a
picture of where it differs beside it (NAME.diff.png). WEB_GOLDEN_UPDATE=1 keeps the new ones."""
import os

from PIL import Image, ImageChops

GOLDENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Goldens", "Web")
STEP = 48
TOLERANCE = 0.02


def compare(shot, name):
    """(ok, detail) for the screenshot file `shot` against the golden `name`."""
    golden = os.path.join(GOLDENS, name)
    if os.environ.get("WEB_GOLDEN_UPDATE") == "1":
        Image.open(shot).convert("RGB").save(golden, optimize=True)
        return True, "kept as the new golden"
    if not os.path.exists(golden):
        return False, f"no golden {golden} (WEB_GOLDEN_UPDATE=1 makes it)"
    new = Image.open(shot).convert("RGB")
    old = Image.open(golden).convert("RGB")
    if new.size != old.size:
        return False, f"{new.size[0]}×{new.size[1]}, the golden is {old.size[0]}×{old.size[1]}"
    # The largest channel difference of each pixel, then the pixels over the step.
    difference = ImageChops.difference(new, old)
    largest = ImageChops.lighter(ImageChops.lighter(*difference.split()[:2]), difference.split()[2])
    over = largest.point(lambda v: 255 if v > STEP else 0)
    count = sum(1 for v in over.getdata() if v)
    fraction = count / (new.size[0] * new.size[1])
    if fraction > TOLERANCE:
        over.save(shot[: -len(".png")] + ".diff.png")
        return False, f"{fraction:.1%} of the pixels differ (at most {TOLERANCE:.0%}); where: {shot[:-4]}.diff.png"
    return True, f"{fraction:.2%} of the pixels differ"
