// charclass: counts the letters, digits, spaces and other bytes of a text, and its words (maximal
// runs of ASCII letters and digits), with a state machine whose states hand over to each other
// by tail calls: clang's `musttail` with `-mtail-call` compiles each hand-over to
// `return_call_indirect` (through the table of states) or `return_call`, so the machine runs in
// one stack frame however long the text (tests/programs/README.md).
//
// Usage: charclass INPUT (`-` for stdin). Prints `letters N`, `digits N`, `spaces N`,
// `other N` and `words N`, one per line. Exit codes: 0 done, 1 the input could not be read,
// 2 usage.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct counts {
    unsigned long letters, digits, spaces, other, words;
};

typedef void (*state)(const unsigned char *p, const unsigned char *end, struct counts *c);

// Not inlined, so that each hand-over stays a tail call between two functions.
__attribute__((noinline)) static void outside(const unsigned char *p, const unsigned char *end, struct counts *c);
__attribute__((noinline)) static void inside(const unsigned char *p, const unsigned char *end, struct counts *c);

enum kind { LETTER, DIGIT, SPACE, OTHER };

static enum kind kind_of(unsigned char b) {
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) return LETTER;
    if (b >= '0' && b <= '9') return DIGIT;
    if (b == ' ' || b == '\t' || b == '\n' || b == '\r') return SPACE;
    return OTHER;
}

static void count(enum kind k, struct counts *c) {
    switch (k) {
    case LETTER: c->letters++; break;
    case DIGIT: c->digits++; break;
    case SPACE: c->spaces++; break;
    case OTHER: c->other++; break;
    }
}

// The state after a byte of kind k, `inside` a word for a letter or digit: looked up in a table,
// so that the hand-over is an indirect tail call.
static state const next[] = {inside, inside, outside, outside};

static void outside(const unsigned char *p, const unsigned char *end, struct counts *c) {
    if (p == end) return;
    enum kind k = kind_of(*p);
    count(k, c);
    if (k == LETTER || k == DIGIT) {
        // A word starts: a direct tail call to the other state.
        c->words++;
        __attribute__((musttail)) return inside(p + 1, end, c);
    }
    __attribute__((musttail)) return next[k](p + 1, end, c);
}

static void inside(const unsigned char *p, const unsigned char *end, struct counts *c) {
    if (p == end) return;
    enum kind k = kind_of(*p);
    count(k, c);
    if (k == LETTER || k == DIGIT) {
        // Still in the word (clang makes this tail call to itself a loop).
        __attribute__((musttail)) return inside(p + 1, end, c);
    }
    __attribute__((musttail)) return next[k](p + 1, end, c);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "charclass: usage: charclass INPUT\n");
        return 2;
    }
    FILE *in = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "rb");
    if (!in) {
        fprintf(stderr, "charclass: cannot read %s\n", argv[1]);
        return 1;
    }
    size_t len = 0, cap = 4096;
    unsigned char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len, in)) > 0) {
        len += n;
        if (len == cap) text = realloc(text, cap *= 2);
    }
    if (!text || ferror(in)) {
        fprintf(stderr, "charclass: cannot read %s\n", argv[1]);
        return 1;
    }
    struct counts c = {0, 0, 0, 0, 0};
    outside(text, text + len, &c);
    printf("letters %lu\ndigits %lu\nspaces %lu\nother %lu\nwords %lu\n", c.letters, c.digits, c.spaces,
           c.other, c.words);
    return 0;
}
