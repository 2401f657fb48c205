// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskHardware
import KioskSystem
import KioskTestSupport
import Testing

/// Finding chips and the wording of line request errors, without a chip (gpio-sim:
/// `GPIOSimTests`).
@Suite struct GPIOChipTests {
    @Test func chipsAreListedInNumberOrder() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for name in ["gpiochip10", "gpiochip2", "gpiochipX", "gpiomem", "event0"] { try dir.write(name, "") }
        #expect(GPIOChip.devicePaths(in: dir.path) == [dir.file("gpiochip2"), dir.file("gpiochip10")])
        #expect(GPIOChip.devicePaths(in: dir.file("missing")) == [])
    }

    @Test func somethingThatIsNotAChipIsNamed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("gpiochip0", "not a chip")
        guard case .failure(let error) = GPIOChip.find(["pinctrl-bcm2711", "gpiochip0"], in: dir.path) else {
            Issue.record("a regular file was taken for a GPIO chip")
            return
        }
        #expect(
            error.message
                == "no GPIO chip found (pinctrl-bcm2711: no chip with this label; gpiochip0: \(dir.path)/gpiochip0 is not a GPIO chip); chips here: \(dir.path)/gpiochip0 is not a GPIO chip"
        )
    }

    @Test func lineRequestErrorsNameChipLineAndUse() {
        let chip = GPIOChip(path: "/dev/gpiochip0", name: "gpiochip0", label: "pinctrl-bcm2711", lineCount: 58)
        #expect(
            HardwareError.request(Errno(rawValue: EBUSY), chip: chip, line: 5, use: "button A", consumer: "gpio-keys")
                .message
                == "line 5 (button A) on /dev/gpiochip0 gpiochip0 [pinctrl-bcm2711] is busy: already in use by \"gpio-keys\" (a device-tree overlay or another program holds it)"
        )
        #expect(
            HardwareError.request(Errno(rawValue: EACCES), chip: chip, line: 5, use: "button A").message
                == "line 5 (button A) on /dev/gpiochip0 gpiochip0 [pinctrl-bcm2711]: permission denied (the user needs the gpio group, or root)"
        )
        #expect(
            HardwareError.request(Errno(rawValue: EINVAL), chip: chip, line: 60, use: "encoder k A").message
                == "line 60 (encoder k A) on /dev/gpiochip0 gpiochip0 [pinctrl-bcm2711] does not exist: the chip has 58 lines (0…57)"
        )
    }
}
