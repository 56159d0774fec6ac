#ifndef HOOKCTL_CZLIB_SHIM_H
#define HOOKCTL_CZLIB_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include <zlib.h>

/* zlib (libz.so.1, which libcurl itself links, so every host that sends has it) is loaded with dlopen
   on first use, like libcurl and OpenSSL: only the Pushover sink's end-to-end encryption gzips. Only the
   header comes from zlib1g-dev. */

/* Each function pointer is assigned as its own type (`p = (__typeof__(p))symbol`, as in CCurl's shim),
   never stored through `*(void **)&p`: a store under another type is one alias analysis may ignore. */
static inline void *hk_zlib_symbol(const char *name) {
    static void *lib;
    if (!lib) lib = dlopen("libz.so.1", RTLD_LAZY | RTLD_LOCAL);
    return lib ? dlsym(lib, name) : NULL;
}

/* The deflate parameters: a push's field is at most a few KB, so a 1 KB window and memory level 4 (a 4 KB
   hash table, 1024 symbols a block) keep the whole state near 12 KB instead of zlib's default 256 KB, which
   a sender between two pushes has long evicted from the cache, and which deflateReset clears 64 KB of per
   call. Level 1: on a push's kilobyte of agent text level 9 took half as long again for 3 % fewer bytes.
   Pushover's format only asks for gzip; any gunzip reads any window. The loopback Pushover stand-in
   (Tests/Fixtures/pushover_standin.py) compresses with the same three to reproduce a field byte for byte. */
#define HK_GZIP_LEVEL Z_BEST_SPEED
#define HK_GZIP_WINDOW_BITS 10
#define HK_GZIP_MEMORY_LEVEL 4

/* A gzip member with zlib's own header (mtime 0, XFL 4 "fastest", OS 3), as Python's
   zlib.compressobj(1, DEFLATED, 16 + 10, 4) writes it, into `out` (room for `capacity` bytes). Returns its
   length, or -1 (zlib missing, or `out` too small). Each thread keeps its deflate state and resets it per
   call: setting one up costs more than compressing a push's kilobyte. */
static inline long hk_gzip(const unsigned char *in, size_t length, unsigned char *out, size_t capacity) {
    static int (*init)(z_streamp, int, int, int, int, int, const char *, int);
    static int (*reset)(z_streamp);
    static int (*run)(z_streamp, int);
    static __thread z_stream stream;
    static __thread int ready;
    if (!init || !reset || !run) {
        init = (__typeof__(init))hk_zlib_symbol("deflateInit2_");
        reset = (__typeof__(reset))hk_zlib_symbol("deflateReset");
        run = (__typeof__(run))hk_zlib_symbol("deflate");
        if (!init || !reset || !run) return -1;
    }
    if (!ready) {
        memset(&stream, 0, sizeof stream);
        /* + 16: a gzip wrapper around the deflate stream. */
        if (init(&stream, HK_GZIP_LEVEL, Z_DEFLATED, HK_GZIP_WINDOW_BITS + 16, HK_GZIP_MEMORY_LEVEL, Z_DEFAULT_STRATEGY,
                 ZLIB_VERSION, (int)sizeof stream) != Z_OK) return -1;
        ready = 1;
    } else if (reset(&stream) != Z_OK) {
        return -1;
    }
    stream.next_in = (unsigned char *)in;
    stream.avail_in = (uInt)length;
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    return run(&stream, Z_FINISH) == Z_STREAM_END ? (long)stream.total_out : -1;
}

/* Inflates one gzip member into `out` (room for `capacity` bytes). Returns the length, -1 for input that
   is not gzip or is cut short (or zlib missing), -2 when the output would not fit in `capacity`. */
static inline long hk_gunzip(const unsigned char *in, size_t length, unsigned char *out, size_t capacity) {
    static int (*init)(z_streamp, int, const char *, int);
    static int (*run)(z_streamp, int);
    static int (*end)(z_streamp);
    if (!init || !run || !end) {
        init = (__typeof__(init))hk_zlib_symbol("inflateInit2_");
        run = (__typeof__(run))hk_zlib_symbol("inflate");
        end = (__typeof__(end))hk_zlib_symbol("inflateEnd");
        if (!init || !run || !end) return -1;
    }
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (init(&stream, 15 + 16, ZLIB_VERSION, (int)sizeof stream) != Z_OK) return -1;
    stream.next_in = (unsigned char *)in;
    stream.avail_in = (uInt)length;
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    int status = run(&stream, Z_FINISH);
    long result = status == Z_STREAM_END ? (long)stream.total_out : (status == Z_BUF_ERROR && stream.avail_out == 0 ? -2 : -1);
    end(&stream);
    return result;
}
#endif
