#ifndef HOOKCTL_CCRYPTO_SHIM_H
#define HOOKCTL_CCRYPTO_SHIM_H
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/random.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>

/* OpenSSL (libcrypto.so.3 / libssl.so.3, already libcurl's TLS library) is loaded with dlopen on first
   use, like libcurl, so commands that never sign or send start without it. Only the headers come from
   libssl-dev. */

/* Each function pointer is assigned as its own type (`p = (__typeof__(p))symbol`, as in CCurl's shim),
   never stored through `*(void **)&p`: a store under another type is one alias analysis may ignore. */
static inline void *hk_crypto_symbol(const char *library, const char *name) {
    void *lib = dlopen(library, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
    return lib ? dlsym(lib, name) : NULL;
}

/* Each thread's OpenSSL context is freed when the thread ends (a pthread key's destructor), so a sender
   that seals or signs on many short threads keeps no context per thread it ever ran. The counter is the
   contexts alive now, for the test that checks it. */
struct hk_crypto_state {
    long live;
    pthread_key_t mac_key, cipher_key;
    int keys_made;
};

/* One state per object file that calls these functions (they are static inline): Swift reaches them
   from Support/HMAC.swift only, so there is one. */
static inline struct hk_crypto_state *hk_crypto_state(void) {
    static struct hk_crypto_state state;
    return &state;
}

static inline void hk_crypto_free_mac(void *ctx) {
    static void (*free_ctx)(EVP_MAC_CTX *);
    if (!free_ctx) free_ctx = (__typeof__(free_ctx))hk_crypto_symbol("libcrypto.so.3", "EVP_MAC_CTX_free");
    if (ctx && free_ctx) { free_ctx((EVP_MAC_CTX *)ctx); __atomic_sub_fetch(&hk_crypto_state()->live, 1, __ATOMIC_RELAXED); }
}

static inline void hk_crypto_free_cipher(void *ctx) {
    static void (*free_ctx)(EVP_CIPHER_CTX *);
    if (!free_ctx) free_ctx = (__typeof__(free_ctx))hk_crypto_symbol("libcrypto.so.3", "EVP_CIPHER_CTX_free");
    if (ctx && free_ctx) { free_ctx((EVP_CIPHER_CTX *)ctx); __atomic_sub_fetch(&hk_crypto_state()->live, 1, __ATOMIC_RELAXED); }
}

static inline void hk_crypto_make_keys(void) {
    struct hk_crypto_state *state = hk_crypto_state();
    state->keys_made = pthread_key_create(&state->mac_key, hk_crypto_free_mac) == 0
        && pthread_key_create(&state->cipher_key, hk_crypto_free_cipher) == 0;
}

/* Registers a new context of this thread for freeing at its end; 0 when that cannot be (the caller then
   frees it and fails: a context is never left behind). */
static inline int hk_crypto_keep(int cipher, void *ctx) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, hk_crypto_make_keys);
    struct hk_crypto_state *state = hk_crypto_state();
    if (!state->keys_made || pthread_setspecific(cipher ? state->cipher_key : state->mac_key, ctx) != 0) return 0;
    __atomic_add_fetch(&hk_crypto_state()->live, 1, __ATOMIC_RELAXED);
    return 1;
}

/* The contexts alive now (threads that sealed or signed and have not ended). */
static inline long hk_crypto_contexts_alive(void) { return __atomic_load_n(&hk_crypto_state()->live, __ATOMIC_RELAXED); }

/* HMAC-SHA256 in one call; returns the digest length (32) or 0 on failure. OpenSSL 3's one-shot HMAC()
   fetches the MAC and the digest from the provider on every call (EVP_Q_mac), which costs more than the
   MAC of a push's kilobyte: the HMAC is fetched once, each thread keeps its context with SHA-256 set, and
   each call only keys it again (EVP_MAC_init). The parameter is written out as OpenSSL's core.h defines
   it, since OSSL_PARAM_construct_* are functions of the library loaded at run time. */
static inline unsigned int hk_hmac_sha256(const void *key, int key_len, const unsigned char *data, size_t data_len,
                                          unsigned char *out /* 32 bytes */) {
    static EVP_MAC *(*fetch)(OSSL_LIB_CTX *, const char *, const char *);
    static EVP_MAC_CTX *(*ctx_new)(EVP_MAC *);
    static int (*set_params)(EVP_MAC_CTX *, const OSSL_PARAM *);
    static int (*init)(EVP_MAC_CTX *, const unsigned char *, size_t, const OSSL_PARAM *);
    static int (*update)(EVP_MAC_CTX *, const unsigned char *, size_t);
    static int (*final)(EVP_MAC_CTX *, unsigned char *, size_t *, size_t);
    static EVP_MAC *hmac;
    static __thread EVP_MAC_CTX *ctx;
    if (!fetch || !ctx_new || !set_params || !init || !update || !final) {
        fetch = (__typeof__(fetch))hk_crypto_symbol("libcrypto.so.3", "EVP_MAC_fetch");
        ctx_new = (__typeof__(ctx_new))hk_crypto_symbol("libcrypto.so.3", "EVP_MAC_CTX_new");
        set_params = (__typeof__(set_params))hk_crypto_symbol("libcrypto.so.3", "EVP_MAC_CTX_set_params");
        init = (__typeof__(init))hk_crypto_symbol("libcrypto.so.3", "EVP_MAC_init");
        update = (__typeof__(update))hk_crypto_symbol("libcrypto.so.3", "EVP_MAC_update");
        final = (__typeof__(final))hk_crypto_symbol("libcrypto.so.3", "EVP_MAC_final");
        if (!fetch || !ctx_new || !set_params || !init || !update || !final) return 0;
    }
    if (!hmac) {
        EVP_MAC *fetched = fetch(NULL, "HMAC", NULL);
        if (!fetched) return 0;
        /* Two threads may both fetch the first time: one keeps it, the other's stays referenced (once). */
        if (!__atomic_compare_exchange_n(&hmac, &(EVP_MAC *){NULL}, fetched, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
    }
    if (!ctx) {
        EVP_MAC_CTX *fresh = ctx_new(hmac);
        if (!fresh) return 0;
        char digest[] = "SHA256";
        OSSL_PARAM params[] = {
            { OSSL_MAC_PARAM_DIGEST, OSSL_PARAM_UTF8_STRING, digest, sizeof digest - 1, OSSL_PARAM_UNMODIFIED },
            { NULL, 0, NULL, 0, 0 },
        };
        if (set_params(fresh, params) != 1 || !hk_crypto_keep(0, fresh)) {
            __atomic_add_fetch(&hk_crypto_state()->live, 1, __ATOMIC_RELAXED);
            hk_crypto_free_mac(fresh);
            return 0;
        }
        ctx = fresh;
    }
    /* A NULL key would keep the previous call's key: an empty one is keyed as empty. */
    static const unsigned char empty = 0;
    size_t len = 0;
    if (init(ctx, key_len > 0 ? key : &empty, key_len > 0 ? (size_t)key_len : 0, NULL) != 1
        || update(ctx, data, data_len) != 1 || final(ctx, out, &len, 32) != 1) return 0;
    return (unsigned int)len;
}

/* SHA-256 in one call; returns the digest length (32) or 0 on failure. */
static inline unsigned int hk_sha256(const unsigned char *data, size_t data_len, unsigned char *out /* 32 bytes */) {
    static int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *);
    static const EVP_MD *(*sha256)(void);
    if (!digest || !sha256) {
        digest = (__typeof__(digest))hk_crypto_symbol("libcrypto.so.3", "EVP_Digest");
        sha256 = (__typeof__(sha256))hk_crypto_symbol("libcrypto.so.3", "EVP_sha256");
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
        ctx_new = (__typeof__(ctx_new))hk_crypto_symbol("libcrypto.so.3", "EVP_CIPHER_CTX_new");
        fetch = (__typeof__(fetch))hk_crypto_symbol("libcrypto.so.3", "EVP_CIPHER_fetch");
        init = (__typeof__(init))hk_crypto_symbol("libcrypto.so.3", "EVP_CipherInit_ex2");
        update = (__typeof__(update))hk_crypto_symbol("libcrypto.so.3", "EVP_CipherUpdate");
        final = (__typeof__(final))hk_crypto_symbol("libcrypto.so.3", "EVP_CipherFinal_ex");
        if (!ctx_new || !fetch || !init || !update || !final) return -1;
    }
    if (!aes) {
        EVP_CIPHER *fetched = fetch(NULL, "AES-256-CBC", NULL);
        if (!fetched) return -1;
        /* Two threads may both fetch the first time: one keeps it, the other's stays referenced (once). */
        if (!__atomic_compare_exchange_n(&aes, &(EVP_CIPHER *){NULL}, fetched, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
    }
    if (!ctx) {
        EVP_CIPHER_CTX *fresh = ctx_new();
        if (!fresh) return -1;
        if (!hk_crypto_keep(1, fresh)) {
            __atomic_add_fetch(&hk_crypto_state()->live, 1, __ATOMIC_RELAXED);
            hk_crypto_free_cipher(fresh);
            return -1;
        }
        ctx = fresh;
    }
    int written = 0, last = 0;
    int ok = init(ctx, aes, key, iv, encrypt, NULL) == 1
        && update(ctx, out, &written, in, length) == 1 && final(ctx, out + written, &last) == 1;
    return ok ? written + last : -1;
}

/* `count` bytes from the kernel's CSPRNG (getrandom(2): what OpenSSL's own DRBG seeds from, and what
   Apprise's os.urandom reads for the same IV); returns 1, or 0 on failure. Not RAND_bytes: OpenSSL 3 sets
   its DRBG up on the first call (CTR-DRBG and AES fetched from the provider, seeded: about 8 M
   instructions), more than a sender that speaks no TLS spent sealing thirty pushes. */
static inline int hk_random_bytes(unsigned char *out, int count) {
    int filled = 0;
    while (filled < count) {
        ssize_t got = getrandom(out + filled, (size_t)(count - filled), 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        filled += (int)got;
    }
    return 1;
}

/* Initializes OpenSSL without reading openssl.cnf or loading error strings, before libcurl's own
   global init (which would do both): that is most of libcurl's start-up cost, and hookctl sets the
   TLS floor itself (TLS 1.2) on every transfer. Returns 0 when libssl is not there (curl then
   initializes it its own way). */
static inline int hk_openssl_init_lean(void) {
    int (*init)(uint64_t, const OPENSSL_INIT_SETTINGS *);
    init = (__typeof__(init))hk_crypto_symbol("libssl.so.3", "OPENSSL_init_ssl");
    if (!init) return 0;
    return init(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_SSL_STRINGS | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL);
}
#endif
