/* SPDX-License-Identifier: MIT */
/* The flame graph page's fixed parts (report_svg_page.c), shared with the
 * writer of its frames (report_svg.c). */
#ifndef PMUK_CORE_REPORT_SVG_H
#define PMUK_CORE_REPORT_SVG_H

/* Geometry both the C writer and the page's script use (pixels). */
#define SVG_WIDTH 1200
#define SVG_PAD 10
#define SVG_FRAME_H 16
#define SVG_TOP 36
#define SVG_BOTTOM 40
/* Frames narrower than this are left out (and counted). */
#define SVG_MIN_PX 0.1
/* Advance of a character of the frames' font: 12 px monospace. */
#define SVG_CHAR_W 7.2

extern const char pmuk_svg_style[];
extern const char pmuk_svg_script[];

#endif
