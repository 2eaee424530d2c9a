/* A tiny printf over the UART's TX register. */
#include "fw.h"
#include "soc_map.h"

void putchar_uart(char c) { wr32(SOC_UART_BASE + SOC_UART_TXDATA, (uint8_t)c); }

static int put_number(uint64_t v, unsigned base, int negative, int width, char pad) {
  char buf[24];
  int n = 0, out = 0;
  do {
    unsigned d = (unsigned)(v % base);
    buf[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    v /= base;
  } while (v);
  if (negative) {
    if (pad == '0') {
      putchar_uart('-');
      ++out;
    } else {
      buf[n++] = '-';
    }
    --width;
  }
  for (int i = n; i < width; ++i, ++out) putchar_uart(pad);
  while (n) {
    putchar_uart(buf[--n]);
    ++out;
  }
  return out;
}

int printf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int out = 0;
  for (const char* p = fmt; *p; ++p) {
    if (*p != '%') {
      putchar_uart(*p);
      ++out;
      continue;
    }
    ++p;
    char pad = ' ';
    int width = 0, longs = 0;
    if (*p == '0') {
      pad = '0';
      ++p;
    }
    while (*p >= '0' && *p <= '9') width = width * 10 + (*p++ - '0');
    while (*p == 'l') {
      ++longs;
      ++p;
    }
    switch (*p) {
      case 'd': {
        int64_t v = longs ? va_arg(ap, int64_t) : va_arg(ap, int);
        out += put_number(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 10, v < 0, width, pad);
        break;
      }
      case 'u':
      case 'x': {
        uint64_t v = longs ? va_arg(ap, uint64_t) : va_arg(ap, unsigned);
        out += put_number(v, *p == 'u' ? 10 : 16, 0, width, pad);
        break;
      }
      case 's': {
        const char* s = va_arg(ap, const char*);
        int len = 0;
        while (s[len]) ++len;
        for (int i = len; i < width; ++i, ++out) putchar_uart(' ');
        for (int i = 0; i < len; ++i, ++out) putchar_uart(s[i]);
        break;
      }
      case 'c':
        putchar_uart((char)va_arg(ap, int));
        ++out;
        break;
      case '%':
        putchar_uart('%');
        ++out;
        break;
      default:  // unknown: print it as written
        putchar_uart('%');
        if (*p) putchar_uart(*p);
        out += 2;
        if (!*p) --p;
        break;
    }
  }
  va_end(ap);
  return out;
}

/* GCC may call these for structure copies and initialisation. */
void* memset(void* dst, int c, unsigned long n);
void* memcpy(void* dst, const void* src, unsigned long n);
void* memset(void* dst, int c, unsigned long n) {
  unsigned char* d = dst;
  while (n--) *d++ = (unsigned char)c;
  return dst;
}
void* memcpy(void* dst, const void* src, unsigned long n) {
  unsigned char* d = dst;
  const unsigned char* s = src;
  while (n--) *d++ = *s++;
  return dst;
}
