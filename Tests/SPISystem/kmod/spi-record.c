// SPDX-License-Identifier: GPL-2.0
/*
 * spi-record: a virtual SPI controller for the player's system test. Debian's kernel has spidev
 * built in but no SPI controller a virtual machine has, and neither spi-loopback-test nor any
 * SPI mock-up driver is enabled. This module registers a controller with one device bound to
 * spidev (driver_override, as Documentation/spi/spidev.rst recommends), so /dev/spidevB.0 is a
 * real kernel spidev: its ioctls, bufsiz limit, per-transfer speed and mode handling are the
 * kernel's own. Each transfer is recorded with the level of the panel's data/command line,
 * read from a GPIO (gpio-sim) chip named by the dc_label/dc_offset parameters at that moment.
 *
 * /proc/spi-record: read = the records; write anything = clear.
 * Record: u32 length, u32 speed_hz, u8 dc (0, 1, or 0xff: unknown), u8 mode, u8 bits_per_word,
 * u8 0, then `length` bytes sent (little-endian header).
 */
#include <linux/gpio/consumer.h>
#include <linux/gpio/driver.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/spi/spi.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

/* Exported by gpiolib, declared only in its private drivers/gpio/gpiolib.h. */
struct gpio_desc *gpiochip_get_desc(struct gpio_chip *gc, unsigned int hwnum);

static char *dc_label = "";
module_param(dc_label, charp, 0644);
MODULE_PARM_DESC(dc_label, "label of the GPIO chip with the data/command line");
static int dc_offset;
module_param(dc_offset, int, 0644);
MODULE_PARM_DESC(dc_offset, "offset of the data/command line on that chip");
static unsigned int capacity = 8 << 20;
module_param(capacity, uint, 0444);
MODULE_PARM_DESC(capacity, "bytes of recording kept");
static int bus_num = -1;
module_param(bus_num, int, 0444);
MODULE_PARM_DESC(bus_num, "the SPI bus number the controller got (read only)");

static u8 *records;
static size_t used;
static bool overflowed;
static DEFINE_MUTEX(records_lock);
static struct platform_device *pdev;
static struct spi_controller *controller;

struct record_header {
	__le32 length;
	__le32 speed_hz;
	u8 dc;
	u8 mode;
	u8 bits_per_word;
	u8 zero;
};

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
/* 6.7 replaced gpiochip_find() with reference-counted gpio_device lookups (trixie's 6.12). */
static u8 read_dc(void)
{
	struct gpio_device *gdev;
	struct gpio_desc *desc;
	int value;

	if (!dc_label || !dc_label[0])
		return 0xff;
	gdev = gpio_device_find_by_label(dc_label);
	if (!gdev)
		return 0xff;
	desc = gpio_device_get_desc(gdev, dc_offset);
	value = IS_ERR(desc) ? -1 : gpiod_get_raw_value_cansleep(desc);
	gpio_device_put(gdev);
	return value < 0 ? 0xff : (u8)value;
}
#else
static int match_label(struct gpio_chip *chip, void *data)
{
	return chip->label && strcmp(chip->label, data) == 0;
}

static u8 read_dc(void)
{
	struct gpio_chip *chip;
	struct gpio_desc *desc;
	int value;

	if (!dc_label || !dc_label[0])
		return 0xff;
	chip = gpiochip_find(dc_label, match_label);
	if (!chip)
		return 0xff;
	desc = gpiochip_get_desc(chip, dc_offset);
	if (IS_ERR(desc))
		return 0xff;
	value = gpiod_get_raw_value_cansleep(desc);
	return value < 0 ? 0xff : (u8)value;
}
#endif

static int record_transfer_one(struct spi_controller *ctlr, struct spi_device *spi,
			       struct spi_transfer *t)
{
	struct record_header header = {
		.length = cpu_to_le32(t->len),
		.speed_hz = cpu_to_le32(t->speed_hz),
		.dc = read_dc(),
		.mode = spi->mode & 0xff,
		.bits_per_word = t->bits_per_word,
	};

	mutex_lock(&records_lock);
	if (used + sizeof(header) + t->len > capacity) {
		overflowed = true;
	} else {
		memcpy(records + used, &header, sizeof(header));
		used += sizeof(header);
		if (t->tx_buf)
			memcpy(records + used, t->tx_buf, t->len);
		else
			memset(records + used, 0, t->len);
		used += t->len;
	}
	mutex_unlock(&records_lock);
	return 0; /* done */
}

static void record_set_cs(struct spi_device *spi, bool enable)
{
}

static ssize_t records_read(struct file *file, char __user *buffer, size_t count, loff_t *pos)
{
	ssize_t n;

	mutex_lock(&records_lock);
	n = simple_read_from_buffer(buffer, count, pos, records, used);
	mutex_unlock(&records_lock);
	return n;
}

static ssize_t records_write(struct file *file, const char __user *buffer, size_t count, loff_t *pos)
{
	mutex_lock(&records_lock);
	used = 0;
	overflowed = false;
	mutex_unlock(&records_lock);
	return count;
}

static const struct proc_ops records_ops = {
	.proc_read = records_read,
	.proc_write = records_write,
	.proc_lseek = default_llseek,
};

static int __init spi_record_init(void)
{
	struct spi_device *spi;
	int ret;

	records = vmalloc(capacity);
	if (!records)
		return -ENOMEM;
	pdev = platform_device_register_simple("spi-record", -1, NULL, 0);
	if (IS_ERR(pdev)) {
		ret = PTR_ERR(pdev);
		goto free_records;
	}
	controller = spi_alloc_master(&pdev->dev, 0);
	if (!controller) {
		ret = -ENOMEM;
		goto unregister_pdev;
	}
	controller->bus_num = -1;
	controller->num_chipselect = 1;
	controller->mode_bits = SPI_CPOL | SPI_CPHA | SPI_CS_HIGH | SPI_LSB_FIRST;
	controller->bits_per_word_mask = SPI_BPW_MASK(8) | SPI_BPW_MASK(16);
	controller->min_speed_hz = 1000;
	controller->max_speed_hz = 125000000;
	controller->transfer_one = record_transfer_one;
	controller->set_cs = record_set_cs;
	ret = spi_register_controller(controller);
	if (ret) {
		spi_controller_put(controller);
		goto unregister_pdev;
	}
	bus_num = controller->bus_num;

	spi = spi_alloc_device(controller);
	if (!spi) {
		ret = -ENOMEM;
		goto unregister_controller;
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	/*
	 * 6.3 made chip_select an array (several chip selects per device): the unused entries must be
	 * invalid (0xff), as the DT parser leaves them, or spi_add_device sees chip select 0 taken twice
	 * and fails with EBUSY; 6.9 added the mask of the entries in use.
	 */
	{
		int idx;

		for (idx = 0; idx < SPI_CS_CNT_MAX; idx++)
			spi_set_chipselect(spi, idx, 0xff);
	}
	spi_set_chipselect(spi, 0, 0);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	spi->cs_index_mask = BIT(0);
#endif
#else
	spi->chip_select = 0;
#endif
	spi->max_speed_hz = 125000000;
	spi->mode = SPI_MODE_0;
	spi->bits_per_word = 8;
	strscpy(spi->modalias, "spidev", sizeof(spi->modalias));
#ifdef KIOSK_DEVICE_DRIVER_OVERRIDE
	ret = device_set_driver_override(&spi->dev, "spidev");
	if (ret) {
		spi_dev_put(spi);
		goto unregister_controller;
	}
#else
	spi->driver_override = kstrdup("spidev", GFP_KERNEL);
#endif
	ret = spi_add_device(spi);
	if (ret) {
		spi_dev_put(spi);
		goto unregister_controller;
	}
	if (!proc_create("spi-record", 0600, NULL, &records_ops)) {
		ret = -ENOMEM;
		goto unregister_controller;
	}
	pr_info("spi-record: SPI bus %d, device %d.0 bound to spidev\n", bus_num, bus_num);
	return 0;

unregister_controller:
	spi_unregister_controller(controller);
unregister_pdev:
	platform_device_unregister(pdev);
free_records:
	vfree(records);
	return ret;
}

static void __exit spi_record_exit(void)
{
	remove_proc_entry("spi-record", NULL);
	spi_unregister_controller(controller);
	platform_device_unregister(pdev);
	vfree(records);
}

module_init(spi_record_init);
module_exit(spi_record_exit);
MODULE_DESCRIPTION("Virtual SPI controller recording transfers, with spidev bound (system tests)");
MODULE_LICENSE("GPL");
