// SPDX-License-Identifier: GPL-3.0-or-later
// Linux framebuffer (fbdev) and virtual-console ioctls for the display: the request macros
// (_IOR/_IOW) and kernel structs are easiest to reach from C.
#pragma once
#include <stdint.h>
#include <linux/fb.h>

/// The parts of fb_var_screeninfo and fb_fix_screeninfo a surface needs to draw.
struct kiosk_fb_layout {
    uint32_t xres, yres;                 // visible resolution
    uint32_t xres_virtual, yres_virtual; // virtual resolution
    uint32_t xoffset, yoffset;           // visible area inside the virtual one
    uint32_t bits_per_pixel;
    uint32_t line_length;                // bytes per line (fix)
    uint32_t smem_len;                   // length of frame buffer memory (fix)
    uint32_t red_offset, red_length;
    uint32_t green_offset, green_length;
    uint32_t blue_offset, blue_length;
    uint32_t transp_offset, transp_length;
    uint32_t grayscale;                  // != 0: graylevels instead of colours
    uint32_t type;                       // FB_TYPE_*
    uint32_t visual;                     // FB_VISUAL_*
    char id[17];                         // driver name (fix.id), NUL-terminated
};

/// Fills `out` from the kernel's two structs (pure; tests use it with structs they build).
void kiosk_fb_layout_from_kernel(const struct fb_var_screeninfo *var, const struct fb_fix_screeninfo *fix,
                                 struct kiosk_fb_layout *out);
/// FBIOGET_VSCREENINFO + FBIOGET_FSCREENINFO on `fd`. Returns 0, or -1 with errno set.
int kiosk_fb_read_layout(int fd, struct kiosk_fb_layout *out);
/// FBIOBLANK with FB_BLANK_UNBLANK (blank == 0) or FB_BLANK_POWERDOWN (blank != 0). 0 or -1/errno.
int kiosk_fb_blank(int fd, int blank);
/// FB_TYPE_PACKED_PIXELS and FB_VISUAL_TRUECOLOR, for checks in Swift.
uint32_t kiosk_fb_type_packed_pixels(void);
uint32_t kiosk_fb_visual_truecolor(void);

/// KDGETMODE on a virtual console: stores 1 for KD_GRAPHICS, 0 for KD_TEXT. 0 or -1/errno.
int kiosk_console_get_graphics(int tty_fd, int *graphics);
/// KDSETMODE KD_GRAPHICS (graphics != 0) or KD_TEXT: stops (or restarts) the console drawing its
/// text and cursor into the frame buffer. 0 or -1/errno.
int kiosk_console_set_graphics(int tty_fd, int graphics);
