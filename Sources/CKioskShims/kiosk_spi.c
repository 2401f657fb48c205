// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_spi.h"

#include <errno.h>
#include <linux/spi/spidev.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

// The layout of struct spi_ioc_transfer is ABI ("the same in 64bit and 32bit userspace", spidev.h):
// 32 bytes, pointers carried as __u64. Any header that disagrees fails the build here.
_Static_assert(sizeof(struct spi_ioc_transfer) == 32, "struct spi_ioc_transfer is 32 bytes");
_Static_assert(offsetof(struct spi_ioc_transfer, tx_buf) == 0, "tx_buf at 0");
_Static_assert(offsetof(struct spi_ioc_transfer, rx_buf) == 8, "rx_buf at 8");
_Static_assert(offsetof(struct spi_ioc_transfer, len) == 16, "len at 16");
_Static_assert(offsetof(struct spi_ioc_transfer, speed_hz) == 20, "speed_hz at 20");
_Static_assert(offsetof(struct spi_ioc_transfer, delay_usecs) == 24, "delay_usecs at 24");
_Static_assert(offsetof(struct spi_ioc_transfer, bits_per_word) == 26, "bits_per_word at 26");
_Static_assert(offsetof(struct spi_ioc_transfer, cs_change) == 27, "cs_change at 27");
_Static_assert(offsetof(struct spi_ioc_transfer, tx_nbits) == 28, "tx_nbits at 28");
_Static_assert(offsetof(struct spi_ioc_transfer, rx_nbits) == 29, "rx_nbits at 29");
_Static_assert(offsetof(struct spi_ioc_transfer, word_delay_usecs) == 30, "word_delay_usecs at 30");
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__) || defined(__riscv)
// asm-generic ioctl numbering: dir << 30 | size << 16 | type << 8 | nr, _IOW = write (1).
_Static_assert(SPI_IOC_MESSAGE(1) == 0x40206b00ul, "SPI_IOC_MESSAGE(1) is _IOW('k', 0, char[32])");
_Static_assert(SPI_IOC_WR_MODE == 0x40016b01ul, "SPI_IOC_WR_MODE is _IOW('k', 1, __u8)");
_Static_assert(SPI_IOC_WR_MAX_SPEED_HZ == 0x40046b04ul, "SPI_IOC_WR_MAX_SPEED_HZ is _IOW('k', 4, __u32)");
#endif

int kiosk_spi_configure(int fd, uint8_t mode, uint8_t bits_per_word, uint32_t speed_hz) {
    if (ioctl(fd, SPI_IOC_WR_MODE, &mode) < 0) return -1;
    if (ioctl(fd, SPI_IOC_WR_BITS_PER_WORD, &bits_per_word) < 0) return -1;
    if (ioctl(fd, SPI_IOC_WR_MAX_SPEED_HZ, &speed_hz) < 0) return -1;
    return 0;
}

int kiosk_spi_read_configuration(int fd, uint8_t *mode, uint8_t *bits_per_word, uint32_t *speed_hz) {
    if (ioctl(fd, SPI_IOC_RD_MODE, mode) < 0) return -1;
    if (ioctl(fd, SPI_IOC_RD_BITS_PER_WORD, bits_per_word) < 0) return -1;
    if (ioctl(fd, SPI_IOC_RD_MAX_SPEED_HZ, speed_hz) < 0) return -1;
    return 0;
}

int kiosk_spi_transfer(int fd, const void *tx, void *rx, uint32_t length, uint32_t speed_hz) {
    struct spi_ioc_transfer transfer;
    memset(&transfer, 0, sizeof transfer);  // unused fields must be zero (spidev.h)
    transfer.tx_buf = (uint64_t)(uintptr_t)tx;
    transfer.rx_buf = (uint64_t)(uintptr_t)rx;
    transfer.len = length;
    transfer.speed_hz = speed_hz;
    transfer.bits_per_word = 8;
    return ioctl(fd, SPI_IOC_MESSAGE(1), &transfer);  // EINTR: -1, retried by the Swift caller
}

int kiosk_spi_write(int fd, const void *bytes, uint32_t length, uint32_t speed_hz) {
    return kiosk_spi_transfer(fd, bytes, NULL, length, speed_hz);  // rx_buf 0: nothing received
}

void kiosk_spi_abi(struct kiosk_spi_abi *out) {
    out->message_1 = SPI_IOC_MESSAGE(1);
    out->wr_mode = SPI_IOC_WR_MODE;
    out->wr_bits_per_word = SPI_IOC_WR_BITS_PER_WORD;
    out->wr_max_speed_hz = SPI_IOC_WR_MAX_SPEED_HZ;
    out->rd_max_speed_hz = SPI_IOC_RD_MAX_SPEED_HZ;
    out->transfer_size = sizeof(struct spi_ioc_transfer);
    out->offset_tx_buf = offsetof(struct spi_ioc_transfer, tx_buf);
    out->offset_rx_buf = offsetof(struct spi_ioc_transfer, rx_buf);
    out->offset_len = offsetof(struct spi_ioc_transfer, len);
    out->offset_speed_hz = offsetof(struct spi_ioc_transfer, speed_hz);
    out->offset_delay_usecs = offsetof(struct spi_ioc_transfer, delay_usecs);
    out->offset_bits_per_word = offsetof(struct spi_ioc_transfer, bits_per_word);
    out->offset_cs_change = offsetof(struct spi_ioc_transfer, cs_change);
    out->offset_tx_nbits = offsetof(struct spi_ioc_transfer, tx_nbits);
    out->offset_rx_nbits = offsetof(struct spi_ioc_transfer, rx_nbits);
    out->offset_word_delay_usecs = offsetof(struct spi_ioc_transfer, word_delay_usecs);
}
