/*
 * sortuniq: counts the distinct lines of a text and writes them, most frequent first.
 * A WASI preview 1 command used as a real test program of the profiler
 * (tests/programs/README.md).
 *
 *     sortuniq [--exit CODE] INPUT OUTPUT
 *
 * INPUT is a file in a preopened directory, or "-" for stdin. A line ends at '\n' (which is
 * not part of it); a last line without '\n' counts too, so an empty input has no line.
 * OUTPUT (a file in a preopened directory) receives one "COUNT<TAB>LINE\n" per distinct line
 * occurring at least SORTUNIQ_MIN times (environment, default 1), by count descending, then by
 * line in byte order (a line that is a prefix of another comes first).
 *
 * The lines live in a malloc'd buffer that grows by doubling while reading, the counts in an
 * open-addressing hash table (malloc'd, doubled and rehashed at half load), the ranking in a
 * malloc'd array sorted with qsort.
 *
 * Printed and written output depends only on the arguments, the environment, the input and
 * the names in OUTPUT's directory: the clocks and getentropy are used, but only properties
 * every host has are printed (the monotonic clock does not go back, the wall clock is after
 * 2020, getentropy succeeds).
 *
 * Exit codes: 0 done, 1 input or output failed, 2 usage, 3 no line in the input, or CODE.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds from the Unix epoch to 2020-01-01T00:00:00Z. */
#define YEAR_2020 1577836800

static const char USAGE[] = "usage: sortuniq [--exit CODE] INPUT OUTPUT";

struct line {
    const char *text; /* into the input buffer, not NUL-terminated */
    size_t len;
    unsigned long count;
};

struct table {
    struct line *slots; /* text == NULL: empty */
    size_t cap;         /* a power of two */
    size_t used;
};

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("sortuniq: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static void usage_error(const char *message, const char *value) {
    fprintf(stderr, "%s%s\n", message, value);
    exit(2);
}

/* A whole decimal number of int range, or exit 2. */
static long number(const char *s, const char *what) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < -2147483647L || v > 2147483647L) {
        fprintf(stderr, "sortuniq: %s %s is not a number\n", what, s);
        exit(2);
    }
    return v;
}

/* The whole of `f`, grown by doubling; its length in *len. */
static char *read_all(FILE *f, size_t *len) {
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            char *bigger = realloc(buf, cap);
            if (!bigger) {
                fputs("sortuniq: out of memory\n", stderr);
                exit(1);
            }
            buf = bigger;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* FNV-1a, 32 bits. */
static uint32_t hash(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    }
    return h;
}

static struct line *slot(struct table *t, const char *text, size_t len) {
    size_t i = hash(text, len) & (t->cap - 1);
    while (t->slots[i].text &&
           !(t->slots[i].len == len && memcmp(t->slots[i].text, text, len) == 0)) {
        i = (i + 1) & (t->cap - 1);
    }
    return &t->slots[i];
}

static void grow(struct table *t) {
    struct line *old = t->slots;
    size_t old_cap = t->cap;
    t->cap = old_cap ? old_cap * 2 : 16;
    t->slots = xmalloc(t->cap * sizeof *t->slots);
    memset(t->slots, 0, t->cap * sizeof *t->slots);
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].text) {
            *slot(t, old[i].text, old[i].len) = old[i];
        }
    }
    free(old);
}

static void add(struct table *t, const char *text, size_t len) {
    if (2 * (t->used + 1) > t->cap) {
        grow(t);
    }
    struct line *s = slot(t, text, len);
    if (!s->text) {
        s->text = text;
        s->len = len;
        t->used++;
    }
    s->count++;
}

/* Count descending, then bytes ascending, a prefix first. */
static int by_rank(const void *a, const void *b) {
    const struct line *x = a, *y = b;
    if (x->count != y->count) {
        return x->count > y->count ? -1 : 1;
    }
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    if (c) {
        return c;
    }
    return (x->len > y->len) - (x->len < y->len);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints the names in `dir` but "." and "..", sorted by bytes; 0 on success. */
static int list(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        return -1;
    }
    size_t n = 0, cap = 8;
    char **names = xmalloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        if (n == cap) {
            cap *= 2;
            char **bigger = realloc(names, cap * sizeof *names);
            if (!bigger) {
                fputs("sortuniq: out of memory\n", stderr);
                exit(1);
            }
            names = bigger;
        }
        names[n] = xmalloc(strlen(e->d_name) + 1);
        strcpy(names[n++], e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    printf("directory %s:\n", dir);
    for (size_t i = 0; i < n; i++) {
        printf("  %s\n", names[i]);
        free(names[i]);
    }
    free(names);
    return 0;
}

int main(int argc, char **argv) {
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);

    const char *paths[2];
    int npaths = 0, exit_asked = 0;
    long exit_code = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--exit") == 0) {
            if (++i == argc) {
                usage_error("sortuniq: --exit needs a value", "");
            }
            exit_code = number(argv[i], "--exit");
            exit_asked = 1;
        } else if (npaths < 2) {
            paths[npaths++] = argv[i];
        } else {
            usage_error(USAGE, "");
        }
    }
    if (npaths != 2) {
        usage_error(USAGE, "");
    }
    const char *input = paths[0], *output = paths[1];
    long min = 1;
    const char *min_env = getenv("SORTUNIQ_MIN");
    if (min_env) {
        min = number(min_env, "SORTUNIQ_MIN");
    }

    FILE *in = strcmp(input, "-") == 0 ? stdin : fopen(input, "rb");
    size_t len = 0;
    char *text = in ? read_all(in, &len) : NULL;
    if (!text) {
        fprintf(stderr, "sortuniq: cannot read %s: %s\n", input, strerror(errno));
        return 1;
    }
    if (in != stdin) {
        fclose(in);
    }
    fprintf(stderr, "sortuniq: read %zu bytes from %s\n", len, input);

    struct table t = {0};
    size_t lines = 0;
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        add(&t, text + start, end - start);
        lines++;
        start = end + 1;
    }
    if (lines == 0) {
        fprintf(stderr, "sortuniq: no lines in %s\n", input);
        return 3;
    }

    struct line *ranked = xmalloc(t.used * sizeof *ranked);
    size_t n = 0;
    for (size_t i = 0; i < t.cap; i++) {
        if (t.slots[i].text) {
            ranked[n++] = t.slots[i];
        }
    }
    qsort(ranked, n, sizeof *ranked, by_rank);

    FILE *out = fopen(output, "wb");
    if (!out) {
        fprintf(stderr, "sortuniq: cannot write %s: %s\n", output, strerror(errno));
        return 1;
    }
    size_t written = 0;
    for (size_t i = 0; i < n; i++) {
        if ((long)ranked[i].count >= min) {
            fprintf(out, "%lu\t%.*s\n", ranked[i].count, (int)ranked[i].len, ranked[i].text);
            written++;
        }
    }
    if (fclose(out) != 0) {
        fprintf(stderr, "sortuniq: cannot write %s: %s\n", output, strerror(errno));
        return 1;
    }

    printf("input: %s\n", input);
    printf("lines: %zu\n", lines);
    printf("bytes: %zu\n", len);
    printf("distinct: %zu\n", n);
    printf("written: %zu\n", written);

    /* The directory part of OUTPUT, "." when it has none. */
    const char *slash = strrchr(output, '/');
    char *dir;
    if (!slash) {
        dir = xmalloc(2);
        strcpy(dir, ".");
    } else {
        size_t dlen = slash == output ? 1 : (size_t)(slash - output);
        dir = xmalloc(dlen + 1);
        memcpy(dir, output, dlen);
        dir[dlen] = 0;
    }
    if (list(dir) != 0) {
        fprintf(stderr, "sortuniq: cannot list %s: %s\n", dir, strerror(errno));
        return 1;
    }
    free(dir);

    struct timespec now, wall;
    clock_gettime(CLOCK_MONOTONIC, &now);
    clock_gettime(CLOCK_REALTIME, &wall);
    int monotonic = now.tv_sec > started.tv_sec ||
                    (now.tv_sec == started.tv_sec && now.tv_nsec >= started.tv_nsec);
    printf("clock: %s\n", monotonic && wall.tv_sec >= YEAR_2020 ? "ok" : "WRONG");
    unsigned char entropy[16];
    printf("entropy: %s\n", getentropy(entropy, sizeof entropy) == 0 ? "ok" : "failed");

    free(ranked);
    free(t.slots);
    free(text);
    if (exit_asked) {
        fflush(stdout);
        fprintf(stderr, "sortuniq: exiting with %ld as asked\n", exit_code);
        exit((int)exit_code);
    }
    return 0;
}
