#!/usr/bin/env python3
"""Validates board profiles (boards/*.json) against the schema in boards/README.md.

    deploy/check-boards.py [FILE.json | DIR]...      (default: the repository's boards/)

Prints one line per problem, "FILE: key.path: message", and exits 1 if there was any; prints
"N passed, 0 failed" otherwise. A stand-in until `kiosk-player boards --check` exists: the
Swift loader is the reference, this only mirrors boards/README.md (plus the SPI panel object
proposed there) so CI can check the profiles today.
"""

import json
import os
import sys

def _actions():
    """The action names, read from the player's own enum (Sources/KioskInput/Action.swift), so the
    checker cannot fall behind it: `case name = "raw-name"` or `case name`."""
    import os
    import re
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "KioskInput", "Action.swift")
    with open(source, encoding="utf-8") as f:
        text = f.read()
    names = []
    for match in re.finditer(r'^\s*case\s+(\w+)(?:\s*=\s*"([^"]+)")?\s*$', text, re.MULTILINE):
        names.append(match.group(2) or match.group(1))
    if not names:
        sys.exit("check-boards: no actions found in " + source)
    return names


ACTIONS = _actions()
BIASES = ["pull-up", "pull-down", "disable", "as-is"]
SCREEN_TYPES = ["framebuffer", "spi", "none", "auto"]
ROTATIONS = [0, 90, 180, 270]
PANEL_CONTROLLERS = ["st7789", "st7735s", "ili9341"]
MAX_LINE = 511


class Checker:
    def __init__(self, path):
        self.path = path
        self.errors = []
        self.lines = {}  # line -> description of its first use

    def error(self, where, message):
        self.errors.append(f"{self.path}: {where}: {message}")

    # --- value checks -------------------------------------------------------------------------
    def obj(self, value, where, required=(), optional=()):
        if not isinstance(value, dict):
            self.error(where, f"expected an object, found {kind(value)}")
            return False
        known = set(required) | set(optional)
        for key in value:
            if key not in known:
                self.error(join(where, key), f"unknown key; known keys are: {', '.join(sorted(known))}")
        for key in required:
            if key not in value:
                self.error(join(where, key), "required key is missing")
        return True

    def string(self, value, where, nonempty=True):
        if not isinstance(value, str):
            self.error(where, f"expected a string, found {kind(value)}")
            return False
        if nonempty and not value:
            self.error(where, "must not be empty")
            return False
        return True

    def boolean(self, value, where):
        if not isinstance(value, bool):
            self.error(where, f"expected true or false, found {kind(value)}")

    def integer(self, value, where, low, high):
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(where, f"expected an integer {low}…{high}, found {kind(value)}")
            return False
        if not low <= value <= high:
            self.error(where, f"{value} is out of range {low}…{high}")
            return False
        return True

    def one_of(self, value, where, allowed):
        if value not in allowed:
            shown = ", ".join(json.dumps(a) for a in allowed)
            self.error(where, f"{json.dumps(value)} is not allowed; expected one of: {shown}")

    def action(self, value, where):
        if not isinstance(value, str):
            self.error(where, f"expected an action name, found {kind(value)}")
        elif value not in ACTIONS:
            self.error(where, f"unknown action {json.dumps(value)}; actions are: {', '.join(ACTIONS)}")

    def use_line(self, value, where, use):
        if not self.integer(value, where, 0, MAX_LINE):
            return
        if value in self.lines:
            self.error(where, f"line {value} ({use}) is already used by {self.lines[value]}")
        else:
            self.lines[value] = f"{use} at {where}"

    # --- sections -----------------------------------------------------------------------------
    def check(self, profile, expected_name):
        if not self.obj(profile, "(top level)", required=["name"], optional=[
                "description", "test", "gpioChip", "reservedLines", "buttons", "encoders", "chords",
                "evdev", "cardReaders", "screen", "audio", "configTxt"]):
            return
        if self.string(profile.get("name"), "name") and profile["name"] != expected_name:
            self.error("name", f"{json.dumps(profile['name'])} must equal the file name {json.dumps(expected_name)}")
        if "description" in profile:
            self.string(profile["description"], "description")
        if "test" in profile:
            self.boolean(profile["test"], "test")
        if "configTxt" in profile:
            lines = profile["configTxt"]
            if not isinstance(lines, list):
                self.error("configTxt", f"expected an array of config.txt lines, found {kind(lines)}")
            else:
                for i, line in enumerate(lines):
                    if not isinstance(line, str) or "=" not in line[1:] or " " in line or "#" in line:
                        self.error(f"configTxt[{i}]", f"expected a config.txt line like \"dtparam=spi=on\", got {json.dumps(line)}")
        if "gpioChip" in profile:
            chips = profile["gpioChip"]
            if not isinstance(chips, list) or not chips:
                self.error("gpioChip", "expected a non-empty array of chip labels, paths, names or numbers")
            else:
                for i, chip in enumerate(chips):
                    if isinstance(chip, bool) or not isinstance(chip, (str, int)):
                        self.error(f"gpioChip[{i}]", f"expected a string or a number, found {kind(chip)}")
                # As InputProfile.parse: on a Pi 5 chip numbers move with the kernel.
                if "pinctrl-rp1" in chips:
                    for i, chip in enumerate(chips):
                        if chip_number(chip):
                            self.error(f"gpioChip[{i}]", f"{json.dumps(chip)} is a chip number, and on a Raspberry Pi 5 "
                                       "numbers move with the kernel: a profile that names pinctrl-rp1 names chips "
                                       "by label only")
        # Reserved lines first, so a button on one reports the reservation.
        for i, item in enumerate(array(self, profile, "reservedLines")):
            where = f"reservedLines[{i}]"
            if self.obj(item, where, required=["line", "use"]):
                self.string(item.get("use"), join(where, "use"))
                self.use_line(item.get("line"), join(where, "line"), f"reserved: {item.get('use')}")
        names = set()
        for i, button in enumerate(array(self, profile, "buttons")):
            where = f"buttons[{i}]"
            if not self.obj(button, where, required=["name", "line"], optional=[
                    "bias", "activeLow", "debounceMs", "press", "longPress", "hold"]):
                continue
            name = button.get("name")
            if self.string(name, join(where, "name")):
                if name in names:
                    self.error(join(where, "name"), f"button name {json.dumps(name)} is used twice")
                names.add(name)
            self.use_line(button.get("line"), join(where, "line"), f"button {name}")
            self.button_style(button, where)
            if not any(k in button for k in ("press", "longPress", "hold")):
                self.error(where, "a button needs at least one of press, longPress, hold")
        for i, encoder in enumerate(array(self, profile, "encoders")):
            where = f"encoders[{i}]"
            if not self.obj(encoder, where, required=["name", "a", "b", "clockwise", "counterClockwise"], optional=[
                    "bias", "stepsPerDetent", "reverse", "acceleration"]):
                continue
            name = encoder.get("name")
            if self.string(name, join(where, "name")):
                if name in names:
                    self.error(join(where, "name"), f"name {json.dumps(name)} is used twice")
                names.add(name)
            self.use_line(encoder.get("a"), join(where, "a"), f"encoder {name} A")
            self.use_line(encoder.get("b"), join(where, "b"), f"encoder {name} B")
            if "bias" in encoder:
                self.one_of(encoder["bias"], join(where, "bias"), BIASES)
            if "stepsPerDetent" in encoder:
                self.one_of(encoder["stepsPerDetent"], join(where, "stepsPerDetent"), [1, 2, 4])
            for key in ("reverse", "acceleration"):
                if key in encoder:
                    self.boolean(encoder[key], join(where, key))
            for key in ("clockwise", "counterClockwise"):
                if key in encoder:
                    self.action(encoder[key], join(where, key))
        button_names = {b.get("name") for b in profile.get("buttons", []) if isinstance(b, dict)}
        for i, chord in enumerate(array(self, profile, "chords")):
            where = f"chords[{i}]"
            if not self.obj(chord, where, required=["buttons", "action"], optional=["holdMs"]):
                continue
            members = chord.get("buttons")
            if not isinstance(members, list) or len(members) != 2:
                self.error(join(where, "buttons"), "expected an array of two button names")
            else:
                for j, member in enumerate(members):
                    if member not in button_names:
                        self.error(f"{where}.buttons[{j}]", f"no button named {json.dumps(member)}")
                if len(set(map(str, members))) != len(members):
                    self.error(join(where, "buttons"), "a chord needs two different buttons")
            if "holdMs" in chord:
                self.integer(chord["holdMs"], join(where, "holdMs"), 0, 60000)
            self.action(chord.get("action"), join(where, "action"))
        for i, device in enumerate(array(self, profile, "evdev")):
            self.evdev(device, f"evdev[{i}]")
        for i, reader in enumerate(array(self, profile, "cardReaders")):
            self.card_reader(reader, f"cardReaders[{i}]")
        if "screen" in profile:
            self.screen(profile["screen"], "screen")
        if "audio" in profile:
            self.audio(profile["audio"], "audio")

    def button_style(self, button, where):
        if "bias" in button:
            self.one_of(button["bias"], join(where, "bias"), BIASES)
        if "activeLow" in button:
            self.boolean(button["activeLow"], join(where, "activeLow"))
        if "debounceMs" in button:
            self.integer(button["debounceMs"], join(where, "debounceMs"), 0, 100)
        for key in ("press", "longPress", "hold"):
            if key in button:
                self.action(button[key], join(where, key))
        if "hold" in button and "longPress" in button:
            self.error(where, "a button has either \"hold\" or \"longPress\", not both")

    def evdev(self, device, where):
        if not self.obj(device, where, required=["device"], optional=["keys", "relative"]):
            return
        self.string(device.get("device"), join(where, "device"))
        keys = device.get("keys", {})
        if self.obj(keys, join(where, "keys"), optional=list(keys) if isinstance(keys, dict) else ()):
            for key, value in keys.items():
                kw = join(join(where, "keys"), key)
                if not (key.startswith("KEY_") or key.startswith("BTN_")):
                    self.error(kw, "key names are evdev names such as KEY_PLAYPAUSE or BTN_0")
                if isinstance(value, str):
                    self.action(value, kw)
                elif self.obj(value, kw, optional=["press", "longPress", "hold", "debounceMs"]):
                    if not any(k in value for k in ("press", "longPress", "hold")):
                        self.error(kw, "needs at least one of press, longPress, hold")
                    self.button_style(value, kw)
        relative = device.get("relative", {})
        if self.obj(relative, join(where, "relative"), optional=list(relative) if isinstance(relative, dict) else ()):
            for axis, value in relative.items():
                aw = join(join(where, "relative"), axis)
                if not axis.startswith("REL_"):
                    self.error(aw, "axis names are evdev names such as REL_X")
                if self.obj(value, aw, required=["positive", "negative"]):
                    self.action(value.get("positive"), join(aw, "positive"))
                    self.action(value.get("negative"), join(aw, "negative"))

    def card_reader(self, reader, where):
        if not isinstance(reader, dict) or reader.get("type") not in ("usb", "rc522"):
            self.error(join(where, "type"), 'required: "usb" or "rc522"')
            return
        if reader["type"] == "usb":
            if self.obj(reader, where, required=["type", "device"]):
                self.string(reader.get("device"), join(where, "device"))
            return
        if not self.obj(reader, where, required=["type"], optional=[
                "spiBus", "spiCS", "device", "speedHz", "pollMs", "reset", "gpioChip", "optional"]):
            return
        for key, low, high in (("spiBus", 0, 15), ("spiCS", 0, 15), ("speedHz", 100000, 10000000),
                               ("pollMs", 50, 5000)):
            if key in reader:
                self.integer(reader[key], join(where, key), low, high)
        if "device" in reader:
            self.string(reader["device"], join(where, "device"))
        if "optional" in reader:
            self.boolean(reader["optional"], join(where, "optional"))
        if "reset" in reader:
            self.use_line(reader["reset"], join(where, "reset"), "rc522 reset")

    def screen(self, screen, where):
        if not self.obj(screen, where, optional=["type", "fbName", "device", "rotation", "panel"]):
            return
        kind_ = screen.get("type", "auto")
        self.one_of(kind_, join(where, "type"), SCREEN_TYPES)
        for key in ("fbName", "device"):
            if key in screen:
                self.string(screen[key], join(where, key))
        if "rotation" in screen:
            self.one_of(screen["rotation"], join(where, "rotation"), ROTATIONS)
        if kind_ == "spi" and "panel" not in screen:
            self.error(where, "type \"spi\" needs a \"panel\" object")
        if "panel" in screen:
            self.panel(screen["panel"], join(where, "panel"))

    def panel(self, panel, where):
        if not self.obj(panel, where, required=["controller", "width", "height", "spiBus", "spiCS", "dc"], optional=[
                "reset", "backlight", "rotation", "invert", "bgr", "xOffset", "yOffset", "speedHz", "madctl", "init",
                "device", "gpioChip", "backlightActiveLow", "dither"]):
            return
        self.one_of(panel.get("controller"), join(where, "controller"), PANEL_CONTROLLERS)
        for key in ("width", "height"):
            self.integer(panel.get(key), join(where, key), 1, 1024)
        self.integer(panel.get("spiBus"), join(where, "spiBus"), 0, 15)
        self.integer(panel.get("spiCS"), join(where, "spiCS"), 0, 15)
        self.use_line(panel.get("dc"), join(where, "dc"), "panel DC")
        for key in ("reset", "backlight"):
            if key in panel:
                self.use_line(panel[key], join(where, key), f"panel {key}")
        if "rotation" in panel:
            self.one_of(panel["rotation"], join(where, "rotation"), ROTATIONS)
        for key in ("invert", "bgr"):
            if key in panel:
                self.boolean(panel[key], join(where, key))
        for key in ("xOffset", "yOffset"):
            if key in panel:
                self.integer(panel[key], join(where, key), 0, 255)
        if "speedHz" in panel:
            self.integer(panel["speedHz"], join(where, "speedHz"), 100000, 125000000)
        for key in ("backlightActiveLow", "dither"):
            if key in panel:
                self.boolean(panel[key], join(where, key))
        if "device" in panel:
            self.string(panel["device"], join(where, "device"))
        if "madctl" in panel:
            value = panel["madctl"]
            if isinstance(value, str):
                try:
                    value = int(value, 16)
                except ValueError:
                    value = -1
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 255:
                self.error(join(where, "madctl"), "expected a byte such as \"0x70\" or 112")
        if "init" in panel:
            steps = panel["init"]
            if not isinstance(steps, list):
                self.error(join(where, "init"), "expected an array of strings such as \"36 70\" or \"delay 120\"")
            else:
                for i, step in enumerate(steps):
                    sw = f"{join(where, 'init')}[{i}]"
                    words = step.split() if isinstance(step, str) else []
                    if words[:1] == ["delay"]:
                        ok = len(words) == 2 and words[1].isdigit() and int(words[1]) <= 1000 and i > 0
                    else:
                        ok = bool(words) and all(len(w.removeprefix("0x").removeprefix("0X")) in (1, 2)
                                                 and all(c in "0123456789abcdefABCDEF"
                                                         for c in w.removeprefix("0x").removeprefix("0X"))
                                                 for w in words)
                    if not ok:
                        self.error(sw, "expected hex bytes such as \"36 70\", or \"delay N\" after a command")

    def audio(self, audio, where):
        if not self.obj(audio, where, optional=["device", "fallbackDevices", "mixer"]):
            return
        if "device" in audio:
            self.string(audio["device"], join(where, "device"))
            self.named_card(audio["device"], join(where, "device"))
        if "fallbackDevices" in audio:
            devices = audio["fallbackDevices"]
            if not isinstance(devices, list):
                self.error(join(where, "fallbackDevices"), f"expected an array of ALSA PCM names, found {kind(devices)}")
            else:
                for i, d in enumerate(devices):
                    self.string(d, f"{where}.fallbackDevices[{i}]")
                    self.named_card(d, f"{where}.fallbackDevices[{i}]")
        if "mixer" in audio and audio["mixer"] is not None:
            self.string(audio["mixer"], join(where, "mixer"))

    def named_card(self, device, where):
        """A stock profile names its card: "default" is whichever card probed first on Pi OS Lite,
        and the user's PipeWire on Pi OS Desktop (unreachable from a system service). The player
        still tries "default" after the profile's list (ResolvedConfig)."""
        if isinstance(device, str) and device.split(":")[0] in ("default", "sysdefault"):
            self.error(where, f"{json.dumps(device)} is whichever card probed first (PipeWire's on Pi OS Desktop): "
                       "name the card, as hdmi:CARD=vc4hdmi0,DEV=0 or plughw:CARD=Headphones,DEV=0")


def chip_number(chip):
    """Whether a gpioChip entry names a chip by number: 4, "4", "gpiochip4", "/dev/gpiochip4"."""
    if isinstance(chip, bool):
        return False
    if isinstance(chip, int):
        return True
    name = chip.rsplit("/", 1)[-1]
    return name.isdigit() or (name.startswith("gpiochip") and name[8:].isdigit())


def array(checker, profile, key):
    value = profile.get(key, [])
    if not isinstance(value, list):
        checker.error(key, f"expected an array, found {kind(value)}")
        return []
    return value


def join(where, key):
    return key if where == "(top level)" else f"{where}.{key}"


def kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {json.dumps(value)}"
    if isinstance(value, list):
        return "an array"
    return "an object"


def reject_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {json.dumps(key)}")
        seen[key] = value
    return seen


def check_file(path):
    checker = Checker(path)
    try:
        with open(path, encoding="utf-8") as f:
            profile = json.load(f, object_pairs_hook=reject_duplicates)
    except (OSError, UnicodeDecodeError) as e:
        return [f"{path}: cannot read: {e}"]
    except json.JSONDecodeError as e:
        return [f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}"]
    except ValueError as e:
        return [f"{path}: invalid JSON: {e}"]
    checker.check(profile, os.path.splitext(os.path.basename(path))[0])
    return checker.errors


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    targets = argv[1:] or [os.path.join(here, "..", "boards")]
    files = []
    for target in targets:
        if os.path.isdir(target):
            files += sorted(os.path.join(target, f) for f in os.listdir(target) if f.endswith(".json"))
        else:
            files.append(target)
    if not files:
        print("check-boards: no board profiles found", file=sys.stderr)
        return 1
    failed = 0
    for path in files:
        errors = check_file(path)
        for e in errors:
            print(e)
        failed += 1 if errors else 0
    print(f"check-boards: {len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
