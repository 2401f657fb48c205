// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_fb.h"

#include <errno.h>
#include <linux/kd.h>
#include <string.h>
#include <sys/ioctl.h>

void kiosk_fb_layout_from_kernel(const struct fb_var_screeninfo *var, const struct fb_fix_screeninfo *fix,
                                 struct kiosk_fb_layout *out) {
    memset(out, 0, sizeof *out);
    out->xres = var->xres;
    out->yres = var->yres;
    out->xres_virtual = var->xres_virtual;
    out->yres_virtual = var->yres_virtual;
    out->xoffset = var->xoffset;
    out->yoffset = var->yoffset;
    out->bits_per_pixel = var->bits_per_pixel;
    out->red_offset = var->red.offset;
    out->red_length = var->red.length;
    out->green_offset = var->green.offset;
    out->green_length = var->green.length;
    out->blue_offset = var->blue.offset;
    out->blue_length = var->blue.length;
    out->transp_offset = var->transp.offset;
    out->transp_length = var->transp.length;
    out->grayscale = var->grayscale;
    out->line_length = fix->line_length;
    out->smem_len = fix->smem_len;
    out->type = fix->type;
    out->visual = fix->visual;
    memcpy(out->id, fix->id, sizeof fix->id);
    out->id[sizeof out->id - 1] = 0;
}

int kiosk_fb_read_layout(int fd, struct kiosk_fb_layout *out) {
    struct fb_var_screeninfo var;
    struct fb_fix_screeninfo fix;
    memset(&var, 0, sizeof var);
    memset(&fix, 0, sizeof fix);
    if (ioctl(fd, FBIOGET_VSCREENINFO, &var) != 0) return -1;
    if (ioctl(fd, FBIOGET_FSCREENINFO, &fix) != 0) return -1;
    kiosk_fb_layout_from_kernel(&var, &fix, out);
    return 0;
}

int kiosk_fb_blank(int fd, int blank) {
    return ioctl(fd, FBIOBLANK, blank ? FB_BLANK_POWERDOWN : FB_BLANK_UNBLANK);
}

uint32_t kiosk_fb_type_packed_pixels(void) { return FB_TYPE_PACKED_PIXELS; }
uint32_t kiosk_fb_visual_truecolor(void) { return FB_VISUAL_TRUECOLOR; }

int kiosk_console_get_graphics(int tty_fd, int *graphics) {
    int mode = KD_TEXT;
    if (ioctl(tty_fd, KDGETMODE, &mode) != 0) return -1;
    *graphics = mode == KD_GRAPHICS;
    return 0;
}

int kiosk_console_set_graphics(int tty_fd, int graphics) {
    return ioctl(tty_fd, KDSETMODE, graphics ? KD_GRAPHICS : KD_TEXT);
}
