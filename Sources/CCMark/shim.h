#ifndef HOOKCTL_CCMARK_SHIM_H
#define HOOKCTL_CCMARK_SHIM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmark-gfm.h>

#include <cmark-gfm-core-extensions.h>

/* GitHub's cmark-gfm (CommonMark + tables, strikethrough, autolinks, task lists) parses every Markdown
   text hookctl converts. Its static archives (libcmark-gfm.a, libcmark-gfm-extensions.a from
   libcmark-gfm-dev / libcmark-gfm-extensions-dev) are linked into the binary (Package.swift): no
   library to install on a host, nothing to load at run time, and only the pages of the parser a parse
   touches are ever read. */

/* Parses `length` bytes of Markdown with the GFM extensions hookctl renders; NULL when cmark-gfm
   cannot make a parser. Not thread-safe (the extensions share one table): Swift serialises the calls
   (CommonMarkTree.parsing). The caller frees the document with hk_cmark_free. */
static inline cmark_node *hk_cmark_parse(const char *text, size_t length) {
    cmark_gfm_core_extensions_ensure_registered();
    /* `~x~` stays text (agents write ~5 min); only `~~x~~` is struck through. */
    cmark_parser *parser = cmark_parser_new(CMARK_OPT_STRIKETHROUGH_DOUBLE_TILDE);
    if (!parser) return NULL;
    static const char *const names[] = {"table", "strikethrough", "autolink", "tasklist"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cmark_syntax_extension *extension = cmark_find_syntax_extension(names[i]);
        if (extension) cmark_parser_attach_syntax_extension(parser, extension);
    }
    cmark_parser_feed(parser, text, length);
    cmark_node *document = cmark_parser_finish(parser);
    cmark_parser_free(parser);
    return document;
}

static inline void hk_cmark_free(cmark_node *node) { cmark_node_free(node); }
static inline cmark_node *hk_cmark_first_child(cmark_node *node) { return cmark_node_first_child(node); }
static inline cmark_node *hk_cmark_next(cmark_node *node) { return cmark_node_next(node); }
static inline cmark_node_type hk_cmark_type(cmark_node *node) { return cmark_node_get_type(node); }
static inline const char *hk_cmark_type_string(cmark_node *node) { return cmark_node_get_type_string(node); }
static inline const char *hk_cmark_literal(cmark_node *node) { return cmark_node_get_literal(node); }
static inline const char *hk_cmark_url(cmark_node *node) { return cmark_node_get_url(node); }
static inline int hk_cmark_heading_level(cmark_node *node) { return cmark_node_get_heading_level(node); }
static inline int hk_cmark_list_ordered(cmark_node *node) { return cmark_node_get_list_type(node) == CMARK_ORDERED_LIST; }
static inline int hk_cmark_list_paren(cmark_node *node) { return cmark_node_get_list_delim(node) == CMARK_PAREN_DELIM; }
static inline int hk_cmark_list_start(cmark_node *node) { return cmark_node_get_list_start(node); }
static inline const char *hk_cmark_fence_info(cmark_node *node) { return cmark_node_get_fence_info(node); }
static inline int hk_cmark_start_line(cmark_node *node) { return cmark_node_get_start_line(node); }
static inline int hk_cmark_end_line(cmark_node *node) { return cmark_node_get_end_line(node); }
static inline int hk_cmark_task_checked(cmark_node *node) { return cmark_gfm_extensions_get_tasklist_item_checked(node) ? 1 : 0; }

/* Node types as plain integers for Swift (the enum's values are built from macros). */
static inline int hk_cmark_is(cmark_node *node, cmark_node_type type) { return hk_cmark_type(node) == type; }

#endif
