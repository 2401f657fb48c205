#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes (and reads back) 16-bit SMBus registers of a chip through /dev/i2c-N, as i2cset/i2cget
of i2c-tools would (not installed on the build host, whose root the guest shares).

  smbus-word.py BUS ADDR REG=VALUE...   write each word (REG and VALUE decimal or 0x..; a
                                        negative VALUE is written as its 16-bit two's complement)
  smbus-word.py BUS ADDR REG            print the word at REG

The system test scripts a gauge this way: i2c-stub (chip_addr=ADDR) keeps the words a driver
bound to ADDR (sbs-battery) reads. I2C_SLAVE_FORCE, since that driver holds the address.
"""
import ctypes
import fcntl
import os
import sys

I2C_SLAVE_FORCE = 0x0706
I2C_SMBUS = 0x0720
I2C_SMBUS_READ, I2C_SMBUS_WRITE = 1, 0
I2C_SMBUS_WORD_DATA = 3


class SMBusData(ctypes.Union):
    _fields_ = [("byte", ctypes.c_uint8), ("word", ctypes.c_uint16), ("block", ctypes.c_uint8 * 34)]


class SMBusIoctl(ctypes.Structure):
    _fields_ = [("read_write", ctypes.c_uint8), ("command", ctypes.c_uint8), ("size", ctypes.c_uint32),
                ("data", ctypes.POINTER(SMBusData))]


def transfer(fd, read_write, reg, value=0):
    data = SMBusData()
    data.word = value & 0xFFFF
    request = SMBusIoctl(read_write, reg, I2C_SMBUS_WORD_DATA, ctypes.pointer(data))
    fcntl.ioctl(fd, I2C_SMBUS, request)
    return data.word


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    bus, addr = int(argv[1], 0), int(argv[2], 0)
    fd = os.open(f"/dev/i2c-{bus}", os.O_RDWR)
    fcntl.ioctl(fd, I2C_SLAVE_FORCE, addr)
    for arg in argv[3:]:
        if "=" in arg:
            reg, value = (int(part, 0) for part in arg.split("=", 1))
            transfer(fd, I2C_SMBUS_WRITE, reg, value)
            back = transfer(fd, I2C_SMBUS_READ, reg)
            if back != value & 0xFFFF:
                sys.exit(f"register 0x{reg:02x}: wrote 0x{value & 0xFFFF:04x}, read back 0x{back:04x}")
        else:
            print(transfer(fd, I2C_SMBUS_READ, int(arg, 0)))
    os.close(fd)


if __name__ == "__main__":
    main(sys.argv)
