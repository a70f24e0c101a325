/*
 * A qemu-user plugin that counts the guest instructions executed. Each time the
 * guest makes the system call MARK (a number Linux does not have), it writes the
 * counts at the previous mark and at this one into the file given as `out=PATH`,
 * which the guest then reads. The benchmark's instruction-count mode
 * (WHATENC_BENCH_INSNS, bench/aarch64-insns.sh) marks before and after each
 * implementation's calls, so that the difference is what those calls executed.
 *
 * Only the few entry points of QEMU's plugin API that this uses are declared here
 * (from QEMU's documented plugin interface, version 1, as in QEMU 7.2): Debian's
 * qemu-user exports them but ships no header.
 *
 * Build: gcc -shared -fPIC -O2 -o insn_count.so insn_count.c
 * Run:   qemu-aarch64 -plugin ./insn_count.so,out=COUNTS PROGRAM ...
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define MARK 0x7a7a

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*syscall_cb)(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1, uint64_t a2,
                           uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, syscall_cb cb);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* The guest's instructions so far (the benchmark runs on one thread), and at the
 * last mark. */
static uint64_t count, at_mark;
static const char *file;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &count, qemu_plugin_tb_n_insns(tb));
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
    }
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                               char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            file = argv[i] + 4;
        }
    }
    if (!file) {
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_vcpu_syscall_cb(id, syscall);
    return 0;
}
