#ifndef HOOKCTL_CCRYPTO_SHIM_H
#define HOOKCTL_CCRYPTO_SHIM_H
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

/* HMAC-SHA256 in one call; returns the digest length (32) or 0 on failure. */
static inline unsigned int hk_hmac_sha256(const void *key, int key_len, const unsigned char *data, size_t data_len,
                                          unsigned char *out /* 32 bytes */) {
    unsigned int len = 0;
    if (HMAC(EVP_sha256(), key, key_len, data, data_len, out, &len) == NULL) return 0;
    return len;
}
#endif
