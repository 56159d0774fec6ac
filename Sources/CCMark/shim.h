#ifndef HOOKCTL_CCMARK_SHIM_H
#define HOOKCTL_CCMARK_SHIM_H
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmark-gfm.h>

/* GitHub's cmark-gfm (CommonMark + tables, strikethrough, autolinks, task lists) parses every Markdown
   text hookctl converts. Like libcurl it is loaded with dlopen, and only when a message holds Markdown
   syntax: a hook whose message is plain text never maps it. Only the headers come from
   libcmark-gfm-dev / libcmark-gfm-extensions-dev; at run time the libraries are
   libcmark-gfm0.29.0.gfm.6 and libcmark-gfm-extensions0.29.0.gfm.6 (their sonames below). */

typedef struct {
    int state; /* 0 not tried, 1 loaded, -1 failed */
    cmark_parser *(*parser_new)(int);
    void (*parser_free)(cmark_parser *);
    int (*parser_attach_syntax_extension)(cmark_parser *, cmark_syntax_extension *);
    cmark_syntax_extension *(*find_syntax_extension)(const char *);
    void (*parser_feed)(cmark_parser *, const char *, size_t);
    cmark_node *(*parser_finish)(cmark_parser *);
    void (*node_free)(cmark_node *);
    cmark_node *(*node_first_child)(cmark_node *);
    cmark_node *(*node_next)(cmark_node *);
    cmark_node_type (*node_get_type)(cmark_node *);
    const char *(*node_get_type_string)(cmark_node *);
    const char *(*node_get_literal)(cmark_node *);
    const char *(*node_get_url)(cmark_node *);
    int (*node_get_heading_level)(cmark_node *);
    cmark_list_type (*node_get_list_type)(cmark_node *);
    cmark_delim_type (*node_get_list_delim)(cmark_node *);
    int (*node_get_list_start)(cmark_node *);
    const char *(*node_get_fence_info)(cmark_node *);
    int (*node_get_start_line)(cmark_node *);
    int (*node_get_end_line)(cmark_node *);
    void (*core_extensions_ensure_registered)(void);
    bool (*tasklist_item_checked)(cmark_node *);
} hk_cmark_api;

static inline hk_cmark_api *hk_cmark_table(void) {
    static hk_cmark_api api;
    return &api;
}

/* Loads both libraries once; 1 on success. Not thread-safe: Swift calls it from one `static let`
   (CommonMarkTree.available), which runs it once before any parse. */
static inline int hk_cmark_load(void) {
    hk_cmark_api *api = hk_cmark_table();
    if (api->state != 0) return api->state == 1;
    api->state = -1;
    void *lib = dlopen("libcmark-gfm.so.0.29.0.gfm.6", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcmark-gfm.so", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) return 0;
    void *extensions = dlopen("libcmark-gfm-extensions.so.0.29.0.gfm.6", RTLD_LAZY | RTLD_LOCAL);
    if (!extensions) extensions = dlopen("libcmark-gfm-extensions.so", RTLD_LAZY | RTLD_LOCAL);
    if (!extensions) return 0;
#define HK_CMARK_SYM(handle, field, name) do { *(void **)(&api->field) = dlsym(handle, name); if (!api->field) return 0; } while (0)
    HK_CMARK_SYM(lib, parser_new, "cmark_parser_new");
    HK_CMARK_SYM(lib, parser_free, "cmark_parser_free");
    HK_CMARK_SYM(lib, parser_attach_syntax_extension, "cmark_parser_attach_syntax_extension");
    HK_CMARK_SYM(lib, find_syntax_extension, "cmark_find_syntax_extension");
    HK_CMARK_SYM(lib, parser_feed, "cmark_parser_feed");
    HK_CMARK_SYM(lib, parser_finish, "cmark_parser_finish");
    HK_CMARK_SYM(lib, node_free, "cmark_node_free");
    HK_CMARK_SYM(lib, node_first_child, "cmark_node_first_child");
    HK_CMARK_SYM(lib, node_next, "cmark_node_next");
    HK_CMARK_SYM(lib, node_get_type, "cmark_node_get_type");
    HK_CMARK_SYM(lib, node_get_type_string, "cmark_node_get_type_string");
    HK_CMARK_SYM(lib, node_get_literal, "cmark_node_get_literal");
    HK_CMARK_SYM(lib, node_get_url, "cmark_node_get_url");
    HK_CMARK_SYM(lib, node_get_heading_level, "cmark_node_get_heading_level");
    HK_CMARK_SYM(lib, node_get_list_type, "cmark_node_get_list_type");
    HK_CMARK_SYM(lib, node_get_list_delim, "cmark_node_get_list_delim");
    HK_CMARK_SYM(lib, node_get_list_start, "cmark_node_get_list_start");
    HK_CMARK_SYM(lib, node_get_fence_info, "cmark_node_get_fence_info");
    HK_CMARK_SYM(lib, node_get_start_line, "cmark_node_get_start_line");
    HK_CMARK_SYM(lib, node_get_end_line, "cmark_node_get_end_line");
    HK_CMARK_SYM(extensions, core_extensions_ensure_registered, "cmark_gfm_core_extensions_ensure_registered");
    HK_CMARK_SYM(extensions, tasklist_item_checked, "cmark_gfm_extensions_get_tasklist_item_checked");
#undef HK_CMARK_SYM
    api->core_extensions_ensure_registered();
    api->state = 1;
    return 1;
}

/* Parses `length` bytes of Markdown with the GFM extensions hookctl renders; NULL when the library is
   not available. The caller frees the document with hk_cmark_free. */
static inline cmark_node *hk_cmark_parse(const char *text, size_t length) {
    if (!hk_cmark_load()) return NULL;
    hk_cmark_api *api = hk_cmark_table();
    /* `~x~` stays text (agents write ~5 min); only `~~x~~` is struck through. */
    cmark_parser *parser = api->parser_new(CMARK_OPT_STRIKETHROUGH_DOUBLE_TILDE);
    if (!parser) return NULL;
    static const char *const names[] = {"table", "strikethrough", "autolink", "tasklist"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cmark_syntax_extension *extension = api->find_syntax_extension(names[i]);
        if (extension) api->parser_attach_syntax_extension(parser, extension);
    }
    api->parser_feed(parser, text, length);
    cmark_node *document = api->parser_finish(parser);
    api->parser_free(parser);
    return document;
}

static inline void hk_cmark_free(cmark_node *node) { hk_cmark_table()->node_free(node); }
static inline cmark_node *hk_cmark_first_child(cmark_node *node) { return hk_cmark_table()->node_first_child(node); }
static inline cmark_node *hk_cmark_next(cmark_node *node) { return hk_cmark_table()->node_next(node); }
static inline cmark_node_type hk_cmark_type(cmark_node *node) { return hk_cmark_table()->node_get_type(node); }
static inline const char *hk_cmark_type_string(cmark_node *node) { return hk_cmark_table()->node_get_type_string(node); }
static inline const char *hk_cmark_literal(cmark_node *node) { return hk_cmark_table()->node_get_literal(node); }
static inline const char *hk_cmark_url(cmark_node *node) { return hk_cmark_table()->node_get_url(node); }
static inline int hk_cmark_heading_level(cmark_node *node) { return hk_cmark_table()->node_get_heading_level(node); }
static inline int hk_cmark_list_ordered(cmark_node *node) { return hk_cmark_table()->node_get_list_type(node) == CMARK_ORDERED_LIST; }
static inline int hk_cmark_list_paren(cmark_node *node) { return hk_cmark_table()->node_get_list_delim(node) == CMARK_PAREN_DELIM; }
static inline int hk_cmark_list_start(cmark_node *node) { return hk_cmark_table()->node_get_list_start(node); }
static inline const char *hk_cmark_fence_info(cmark_node *node) { return hk_cmark_table()->node_get_fence_info(node); }
static inline int hk_cmark_start_line(cmark_node *node) { return hk_cmark_table()->node_get_start_line(node); }
static inline int hk_cmark_end_line(cmark_node *node) { return hk_cmark_table()->node_get_end_line(node); }
static inline int hk_cmark_task_checked(cmark_node *node) { return hk_cmark_table()->tasklist_item_checked(node) ? 1 : 0; }

/* Node types as plain integers for Swift (the enum's values are built from macros). */
static inline int hk_cmark_is(cmark_node *node, cmark_node_type type) { return hk_cmark_type(node) == type; }

#endif
