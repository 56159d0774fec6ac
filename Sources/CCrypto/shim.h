#ifndef HOOKCTL_CCRYPTO_SHIM_H
#define HOOKCTL_CCRYPTO_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>

/* OpenSSL (libcrypto.so.3 / libssl.so.3, already libcurl's TLS library) is loaded with dlopen on first
   use, like libcurl, so commands that never sign or send start without it. Only the headers come from
   libssl-dev. */

static inline void *hk_crypto_symbol(const char *library, const char *name) {
    void *lib = dlopen(library, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
    return lib ? dlsym(lib, name) : NULL;
}

/* HMAC-SHA256 in one call; returns the digest length (32) or 0 on failure. */
static inline unsigned int hk_hmac_sha256(const void *key, int key_len, const unsigned char *data, size_t data_len,
                                          unsigned char *out /* 32 bytes */) {
    static unsigned char *(*hmac)(const EVP_MD *, const void *, int, const unsigned char *, size_t, unsigned char *, unsigned int *);
    static const EVP_MD *(*sha256)(void);
    if (!hmac || !sha256) {
        *(void **)(&hmac) = hk_crypto_symbol("libcrypto.so.3", "HMAC");
        *(void **)(&sha256) = hk_crypto_symbol("libcrypto.so.3", "EVP_sha256");
        if (!hmac || !sha256) return 0;
    }
    unsigned int len = 0;
    if (hmac(sha256(), key, key_len, data, data_len, out, &len) == NULL) return 0;
    return len;
}

/* SHA-256 in one call; returns the digest length (32) or 0 on failure. */
static inline unsigned int hk_sha256(const unsigned char *data, size_t data_len, unsigned char *out /* 32 bytes */) {
    static int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *);
    static const EVP_MD *(*sha256)(void);
    if (!digest || !sha256) {
        *(void **)(&digest) = hk_crypto_symbol("libcrypto.so.3", "EVP_Digest");
        *(void **)(&sha256) = hk_crypto_symbol("libcrypto.so.3", "EVP_sha256");
        if (!digest || !sha256) return 0;
    }
    unsigned int len = 0;
    if (digest(data, data_len, out, &len, sha256(), NULL) != 1) return 0;
    return len;
}

/* AES-256-CBC with PKCS#7 padding in one call (EVP): `encrypt` 1 encrypts, 0 decrypts. `out` has room for
   `length + 16` bytes. Returns the output length, or -1 (libcrypto missing, or a bad padding on decrypt).
   The cipher is fetched from the provider once, and each thread keeps its context (reset per call): in
   OpenSSL 3 a fetch and a context per call cost more than encrypting a push's kilobyte. */
static inline int hk_aes256_cbc(int encrypt, const unsigned char *key /* 32 */, const unsigned char *iv /* 16 */,
                                const unsigned char *in, int length, unsigned char *out) {
    static EVP_CIPHER_CTX *(*ctx_new)(void);
    static EVP_CIPHER *(*fetch)(OSSL_LIB_CTX *, const char *, const char *);
    static int (*init)(EVP_CIPHER_CTX *, const EVP_CIPHER *, const unsigned char *, const unsigned char *, int, const OSSL_PARAM *);
    static int (*update)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int);
    static int (*final)(EVP_CIPHER_CTX *, unsigned char *, int *);
    static EVP_CIPHER *aes;
    static __thread EVP_CIPHER_CTX *ctx;
    if (!ctx_new || !fetch || !init || !update || !final) {
        *(void **)(&ctx_new) = hk_crypto_symbol("libcrypto.so.3", "EVP_CIPHER_CTX_new");
        *(void **)(&fetch) = hk_crypto_symbol("libcrypto.so.3", "EVP_CIPHER_fetch");
        *(void **)(&init) = hk_crypto_symbol("libcrypto.so.3", "EVP_CipherInit_ex2");
        *(void **)(&update) = hk_crypto_symbol("libcrypto.so.3", "EVP_CipherUpdate");
        *(void **)(&final) = hk_crypto_symbol("libcrypto.so.3", "EVP_CipherFinal_ex");
        if (!ctx_new || !fetch || !init || !update || !final) return -1;
    }
    if (!aes) {
        EVP_CIPHER *fetched = fetch(NULL, "AES-256-CBC", NULL);
        if (!fetched) return -1;
        /* Two threads may both fetch the first time: one keeps it, the other's stays referenced (once). */
        if (!__atomic_compare_exchange_n(&aes, &(EVP_CIPHER *){NULL}, fetched, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
    }
    if (!ctx && !(ctx = ctx_new())) return -1;
    int written = 0, last = 0;
    int ok = init(ctx, aes, key, iv, encrypt, NULL) == 1
        && update(ctx, out, &written, in, length) == 1 && final(ctx, out + written, &last) == 1;
    return ok ? written + last : -1;
}

/* `count` bytes from OpenSSL's CSPRNG (RAND_bytes); returns 1, or 0 on failure. */
static inline int hk_random_bytes(unsigned char *out, int count) {
    static int (*rand_bytes)(unsigned char *, int);
    if (!rand_bytes) {
        *(void **)(&rand_bytes) = hk_crypto_symbol("libcrypto.so.3", "RAND_bytes");
        if (!rand_bytes) return 0;
    }
    return rand_bytes(out, count) == 1;
}

/* Initializes OpenSSL without reading openssl.cnf or loading error strings, before libcurl's own
   global init (which would do both): that is most of libcurl's start-up cost, and hookctl sets the
   TLS floor itself (TLS 1.2) on every transfer. Returns 0 when libssl is not there (curl then
   initializes it its own way). */
static inline int hk_openssl_init_lean(void) {
    int (*init)(uint64_t, const OPENSSL_INIT_SETTINGS *);
    *(void **)(&init) = hk_crypto_symbol("libssl.so.3", "OPENSSL_init_ssl");
    if (!init) return 0;
    return init(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_SSL_STRINGS | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL);
}
#endif
