// SPDX-License-Identifier: GPL-3.0-or-later
// Linux spidev (/dev/spidevB.C) for SPI panels: the SPI_IOC_* request macros and struct
// spi_ioc_transfer come from <linux/spi/spidev.h> here, so Swift never mirrors the layout.
// kiosk_spi.c pins that layout with static asserts; the Swift tests compare the numbers below
// with the ABI written out by hand.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Sets SPI mode (0…3, SPI_IOC_WR_MODE), bits per word (SPI_IOC_WR_BITS_PER_WORD) and the default
/// clock (SPI_IOC_WR_MAX_SPEED_HZ). Returns 0, or -1 with errno set at the first failing ioctl.
int kiosk_spi_configure(int fd, uint8_t mode, uint8_t bits_per_word, uint32_t speed_hz);

/// Reads mode, bits per word and default clock back (SPI_IOC_RD_*). 0, or -1 with errno set.
int kiosk_spi_read_configuration(int fd, uint8_t *mode, uint8_t *bits_per_word, uint32_t *speed_hz);

/// Sends `length` bytes as one message of one transfer (SPI_IOC_MESSAGE(1)) at `speed_hz`, 8 bits
/// per word, nothing received. spidev refuses messages larger than its `bufsiz` (EMSGSIZE).
/// Returns the byte count, or -1 with errno set (EINTR is the caller's to retry).
int kiosk_spi_write(int fd, const void *bytes, uint32_t length, uint32_t speed_hz);

/// Sends `length` bytes of `tx` and receives `length` bytes into `rx` in the same full-duplex
/// transfer (one SPI_IOC_MESSAGE(1) with both buffers), at `speed_hz`, 8 bits per word: what a chip
/// that answers on MISO (an MFRC522 card reader) needs. Returns the byte count, or -1 with errno set (EINTR not retried).
int kiosk_spi_transfer(int fd, const void *tx, void *rx, uint32_t length, uint32_t speed_hz);

/// The layout facts the tests check: SPI_IOC_MESSAGE(1), the SPI_IOC_WR_* requests, and
/// sizeof/offsetof of struct spi_ioc_transfer.
struct kiosk_spi_abi {
    unsigned long message_1;
    unsigned long wr_mode;
    unsigned long wr_bits_per_word;
    unsigned long wr_max_speed_hz;
    unsigned long rd_max_speed_hz;
    size_t transfer_size;
    size_t offset_tx_buf, offset_rx_buf, offset_len, offset_speed_hz, offset_delay_usecs;
    size_t offset_bits_per_word, offset_cs_change, offset_tx_nbits, offset_rx_nbits, offset_word_delay_usecs;
};
void kiosk_spi_abi(struct kiosk_spi_abi *out);
