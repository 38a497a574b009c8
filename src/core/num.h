/* SPDX-License-Identifier: MIT */
/*
 * num.h: numbers as people write them in options and recipes, decimal
 * only: [+-]DIGITS[.DIGITS][(e|E)[+-]DIGITS] (or .DIGITS). strtod also takes
 * hexadecimal ("0x10" is 16), "inf", "nan" and leading blanks; a duration of
 * "0x10" is far more likely a slip than sixteen seconds, so those are
 * refused here, and every option and recipe parser goes through this.
 */
#ifndef SS_CORE_NUM_H
#define SS_CORE_NUM_H

#include <stddef.h>

/* The length of the decimal number at the start of S (0: none there). */
size_t num_decimal_len(const char *s);

/* S, all of it, as a decimal number into *RET: 0, or -EINVAL (anything
 * else: empty, blanks, hexadecimal, inf, nan, trailing text) or -ERANGE
 * (beyond a double), *RET untouched. */
int num_parse_double(const char *s, double *ret);

/* S, all of it, as a whole decimal number ([+-]DIGITS) into *RET: 0,
 * -EINVAL or -ERANGE (beyond a long). */
int num_parse_long(const char *s, long *ret);

#endif
