#ifndef HOOKCTL_CCURL_SHIM_H
#define HOOKCTL_CCURL_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <curl/curl.h>

/* libcurl is loaded with dlopen the first time hookctl sends HTTP, not linked: linking it makes every
   start of hookctl (session ensure, status, the gate-off hook path) load ~30 shared libraries it
   never uses. Only the headers come from libcurl4-openssl-dev; the library is libcurl.so.4 at run time.

   curl_easy_setopt / curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per
   argument kind, calling through the loaded function pointers. */

typedef struct {
    int state; /* 0 not tried, 1 loaded, -1 failed */
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_perform)(CURL *);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_pause)(CURL *, int);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_cleanup)(CURLM *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} hk_curl_api;

static inline hk_curl_api *hk_curl_table(void) {
    static hk_curl_api api;
    return &api;
}

/* Loads libcurl once (call it from one thread before any other hk_curl_ function); 1 on success. */
static inline int hk_curl_load(void) {
    hk_curl_api *api = hk_curl_table();
    if (api->state != 0) return api->state == 1;
    api->state = -1;
    void *lib = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!lib) lib = dlopen("libcurl.so", RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!lib) return 0;
    /* Assigned as the field's own type, not through `*(void **)&api->field`: a store under another type
       is one that type-based alias analysis may ignore. */
#define HK_CURL_SYM(field, name) do { api->field = (__typeof__(api->field))dlsym(lib, name); if (!api->field) return 0; } while (0)
    HK_CURL_SYM(global_init, "curl_global_init");
    HK_CURL_SYM(easy_init, "curl_easy_init");
    HK_CURL_SYM(easy_setopt, "curl_easy_setopt");
    HK_CURL_SYM(easy_getinfo, "curl_easy_getinfo");
    HK_CURL_SYM(easy_perform, "curl_easy_perform");
    HK_CURL_SYM(easy_cleanup, "curl_easy_cleanup");
    HK_CURL_SYM(easy_pause, "curl_easy_pause");
    HK_CURL_SYM(easy_strerror, "curl_easy_strerror");
    HK_CURL_SYM(multi_init, "curl_multi_init");
    HK_CURL_SYM(multi_add_handle, "curl_multi_add_handle");
    HK_CURL_SYM(multi_remove_handle, "curl_multi_remove_handle");
    HK_CURL_SYM(multi_perform, "curl_multi_perform");
    HK_CURL_SYM(multi_poll, "curl_multi_poll");
    HK_CURL_SYM(multi_info_read, "curl_multi_info_read");
    HK_CURL_SYM(multi_cleanup, "curl_multi_cleanup");
    HK_CURL_SYM(slist_append, "curl_slist_append");
    HK_CURL_SYM(slist_free_all, "curl_slist_free_all");
#undef HK_CURL_SYM
    api->state = 1;
    return 1;
}

/* Why libcurl could not be loaded (after hk_curl_load returned 0). */
static inline const char *hk_curl_load_error(void) { const char *e = dlerror(); return e ? e : "libcurl.so.4 not found"; }

static inline CURLcode hk_curl_global_init(long flags) { return hk_curl_table()->global_init(flags); }
static inline CURL *hk_curl_easy_init(void) { return hk_curl_table()->easy_init(); }
static inline CURLcode hk_curl_easy_perform(CURL *h) { return hk_curl_table()->easy_perform(h); }
static inline void hk_curl_easy_cleanup(CURL *h) { hk_curl_table()->easy_cleanup(h); }
static inline const char *hk_curl_easy_strerror(CURLcode c) { return hk_curl_table()->easy_strerror(c); }
static inline CURLM *hk_curl_multi_init(void) { return hk_curl_table()->multi_init(); }
static inline CURLMcode hk_curl_multi_add_handle(CURLM *m, CURL *h) { return hk_curl_table()->multi_add_handle(m, h); }
static inline CURLMcode hk_curl_multi_remove_handle(CURLM *m, CURL *h) { return hk_curl_table()->multi_remove_handle(m, h); }
static inline CURLMcode hk_curl_multi_perform(CURLM *m, int *running) { return hk_curl_table()->multi_perform(m, running); }
static inline CURLMcode hk_curl_multi_poll(CURLM *m, int timeout_ms, int *ready) { return hk_curl_table()->multi_poll(m, NULL, 0, timeout_ms, ready); }
static inline CURLMsg *hk_curl_multi_info_read(CURLM *m, int *queued) { return hk_curl_table()->multi_info_read(m, queued); }
static inline CURLMcode hk_curl_multi_cleanup(CURLM *m) { return hk_curl_table()->multi_cleanup(m); }
static inline struct curl_slist *hk_curl_slist_append(struct curl_slist *l, const char *s) { return hk_curl_table()->slist_append(l, s); }
static inline void hk_curl_slist_free_all(struct curl_slist *l) { hk_curl_table()->slist_free_all(l); }

static inline CURLcode hk_easy_setopt_long(CURL *h, CURLoption o, long v) { return hk_curl_table()->easy_setopt(h, o, v); }
static inline CURLcode hk_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return hk_curl_table()->easy_setopt(h, o, v); }
static inline CURLcode hk_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return hk_curl_table()->easy_setopt(h, o, v); }
static inline CURLcode hk_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return hk_curl_table()->easy_setopt(h, o, v); }
static inline CURLcode hk_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return hk_curl_table()->easy_setopt(h, o, v); }
static inline CURLcode hk_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback cb) { return hk_curl_table()->easy_setopt(h, o, cb); }
/* Resumes a transfer whose write callback returned CURL_WRITEFUNC_PAUSE (a reader that has caught up). */
static inline CURLcode hk_curl_easy_unpause(CURL *h) { return hk_curl_table()->easy_pause(h, CURLPAUSE_CONT); }
static inline CURLcode hk_easy_getinfo_long(CURL *h, CURLINFO i, long *out) { return hk_curl_table()->easy_getinfo(h, i, out); }

#endif
