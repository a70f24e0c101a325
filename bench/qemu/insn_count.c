/*
 * A qemu-user plugin that counts the guest instructions executed. Each time the
 * guest makes the system call MARK (a number Linux does not have), it writes the
 * counts at the previous mark and at this one into the file given as `out=PATH`,
 * which the guest then reads. The benchmark's instruction-count mode
 * (WHATENC_BENCH_INSNS, bench/aarch64-insns.sh) marks before and after each
 * implementation's calls, so that the difference is what those calls executed.
 *
 * With `profile=PATH` too, it writes at exit the instructions executed in each
 * function (by the symbol of each translation block's first instruction: inlined
 * code counts in its caller), most first, then in each block: an exact profile of
 * what ran between the first and second marks, the third and fourth, and so on (the
 * measured calls, without the benchmark's set-up).
 *
 * With `blocks=PATH`, it writes there, at the end of each measured interval, the
 * blocks that ran in it and how many times each ran, with each block's bytes the
 * first time it appears: what bench/model.py needs to put a CPU's pipeline model
 * on the counts.
 *
 * Only the few entry points of QEMU's plugin API that this uses are declared here
 * (from QEMU's documented plugin interface, version 1, as in QEMU 7.2): Debian's
 * qemu-user exports them but ships no header.
 *
 * Build: gcc -shared -fPIC -O2 -o insn_count.so insn_count.c
 * Run:   qemu-aarch64 -plugin ./insn_count.so,out=COUNTS[,profile=PATH][,blocks=PATH] PROGRAM ...
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MARK 0x7a7a

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*atexit_cb)(qemu_plugin_id_t id, void *userdata);
typedef void (*syscall_cb)(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1, uint64_t a2,
                           uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, syscall_cb cb);
void qemu_plugin_outs(const char *string);
struct qemu_plugin_insn;
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, atexit_cb cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* The guest's instructions so far (the benchmark runs on one thread), and at the
 * last mark. */
static uint64_t count, at_mark;
static const char *file, *profile, *blocks_file;
/* With `blocks`, the file, open from the start. */
static FILE *blocks_out;

/* With `profile`: one counter per translation block, each with the symbol of its
 * first instruction (a block translated again gets another: summed at exit). */
struct block {
    /* All its instructions executed; at the last odd mark; between marks. */
    uint64_t count, at_start, measured, vaddr, insns;
    const char *symbol;
    /* With `blocks`: its number, whether `blocks_out` has its bytes, and them. */
    uint64_t id;
    int written;
    size_t size;
    unsigned char *bytes;
    struct block *next;
};
static struct block *blocks;
/* The marks so far: after an odd number, the calls being measured run. */
static uint64_t marks;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &count, n);
    if ((profile || blocks_out) && n > 0) {
        static uint64_t ids;
        struct block *b = calloc(1, sizeof *b);
        if (!b) {
            return;
        }
        b->id = ids++;
        if (blocks_out) {
            size_t size = 0;
            for (size_t i = 0; i < n; i++) {
                size += qemu_plugin_insn_size(qemu_plugin_tb_get_insn(tb, i));
            }
            b->bytes = malloc(size);
            if (b->bytes) {
                for (size_t i = 0; i < n; i++) {
                    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
                    memcpy(b->bytes + b->size, qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn));
                    b->size += qemu_plugin_insn_size(insn);
                }
            }
        }
        struct qemu_plugin_insn *first = qemu_plugin_tb_get_insn(tb, 0);
        const char *symbol = qemu_plugin_insn_symbol(first);
        b->symbol = symbol ? symbol : "?";
        b->vaddr = qemu_plugin_insn_vaddr(first);
        b->insns = n;
        b->next = blocks;
        blocks = b;
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->count, n);
    }
}

struct total {
    const char *symbol;
    uint64_t count;
};

static int most_first(const void *a, const void *b) {
    uint64_t x = ((const struct total *)a)->count, y = ((const struct total *)b)->count;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Sums the blocks by symbol (symbols are interned by QEMU: one pointer each). */
static void write_profile(qemu_plugin_id_t id, void *userdata) {
    (void)id, (void)userdata;
    size_t n = 0, cap = 1024;
    struct total *totals = malloc(cap * sizeof *totals);
    FILE *out = fopen(profile, "w");
    if (!totals || !out) {
        qemu_plugin_outs("insn_count: cannot write the profile\n");
        return;
    }
    for (struct block *b = blocks; b; b = b->next) {
        size_t i = 0;
        while (i < n && totals[i].symbol != b->symbol && strcmp(totals[i].symbol, b->symbol) != 0) {
            i++;
        }
        if (i == n) {
            if (n == cap) {
                struct total *more = realloc(totals, 2 * cap * sizeof *totals);
                if (!more) {
                    break;
                }
                totals = more, cap *= 2;
            }
            totals[n++] = (struct total){b->symbol, 0};
        }
        totals[i].count += b->measured;
    }
    qsort(totals, n, sizeof *totals, most_first);
    for (size_t i = 0; i < n && totals[i].count > 0; i++) {
        fprintf(out, "%" PRIu64 " %s\n", totals[i].count, totals[i].symbol);
    }
    /* Then each block that ran (instructions, its address, its length, symbol). */
    for (struct block *b = blocks; b; b = b->next) {
        if (b->measured > 0) {
            fprintf(out, "block %" PRIu64 " %#" PRIx64 " %" PRIu64 " %s\n", b->measured, b->vaddr, b->insns,
                    b->symbol);
        }
    }
    fclose(out);
    free(totals);
}

/* With `blocks`: the blocks that ran between the last two marks. A block's bytes
 * come once, the first time it runs ("bytes ID HEX"); then each interval is a line
 * "interval" and a line "ID EXECUTIONS" for each block that ran in it. */
static void write_interval(void) {
    fputs("interval\n", blocks_out);
    for (struct block *b = blocks; b; b = b->next) {
        uint64_t executed = (b->count - b->at_start) / b->insns;
        if (executed == 0) {
            continue;
        }
        if (!b->written) {
            fprintf(blocks_out, "bytes %" PRIu64 " ", b->id);
            for (size_t i = 0; i < b->size; i++) {
                fprintf(blocks_out, "%02x", b->bytes[i]);
            }
            fputc('\n', blocks_out);
            b->written = 1;
        }
        fprintf(blocks_out, "%" PRIu64 " %" PRIu64 "\n", b->id, executed);
    }
    fflush(blocks_out);
}

static void syscall(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                    uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8) {
    (void)id, (void)vcpu_index, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    (void)a1;
    if (num == MARK) {
        FILE *out = fopen(file, "w");
        if (!out || fprintf(out, "%" PRIu64 " %" PRIu64 "\n", at_mark, count) < 0 || fclose(out) != 0) {
            qemu_plugin_outs("insn_count: cannot write the file\n");
        }
        at_mark = count;
        /* A block translated after the start mark starts at zero, as its `at_start`. */
        for (struct block *b = blocks; b; b = b->next) {
            if (marks % 2 == 0) {
                b->at_start = b->count;
            } else {
                b->measured += b->count - b->at_start;
            }
        }
        if (blocks_out && marks % 2 == 1) {
            write_interval();
        }
        marks++;
    }
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                               char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            file = argv[i] + 4;
        } else if (strncmp(argv[i], "profile=", 8) == 0) {
            profile = argv[i] + 8;
        } else if (strncmp(argv[i], "blocks=", 7) == 0) {
            blocks_file = argv[i] + 7;
        }
    }
    if (!file) {
        return -1;
    }
    if (blocks_file && !(blocks_out = fopen(blocks_file, "w"))) {
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_vcpu_syscall_cb(id, syscall);
    if (profile) {
        qemu_plugin_register_atexit_cb(id, write_profile, NULL);
    }
    return 0;
}
