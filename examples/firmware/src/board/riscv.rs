//! The RISC-V board (FE310): start-up, exit through semihosting, the trap handler.
//!
//! The start-up is a few instructions of assembly, placed first in flash by
//! `riscv.x`: global and stack pointers, `.bss` zeroed, `.data` copied from flash,
//! the stack painted with `0xCCCC_CCCC` as cortex-m-rt paints it (so
//! [`crate::stack`] reads it the same way), the trap vector set, then Rust.

core::arch::global_asm!(
    ".section .init, \"ax\"",
    ".global _start",
    "_start:",
    ".option push",
    ".option norelax",
    "la gp, __global_pointer$",
    ".option pop",
    "la sp, _stack_start",
    // .bss: zeroed.
    "la t0, _sbss",
    "la t1, _ebss",
    "1: bgeu t0, t1, 2f",
    "sw zero, 0(t0)",
    "addi t0, t0, 4",
    "j 1b",
    // .data: copied from its load image in flash.
    "2: la t0, _sdata",
    "la t1, _edata",
    "la t2, _sidata",
    "3: bgeu t0, t1, 4f",
    "lw t3, 0(t2)",
    "sw t3, 0(t0)",
    "addi t0, t0, 4",
    "addi t2, t2, 4",
    "j 3b",
    // The stack, from the end of .bss to the top of RAM: painted.
    "4: la t0, _stack_end",
    "la t1, _stack_start",
    "li t2, 0xCCCCCCCC",
    "5: bgeu t0, t1, 6f",
    "sw t2, 0(t0)",
    "addi t0, t0, 4",
    "j 5b",
    "6: la t0, _trap",
    "csrw mtvec, t0",
    "j {main}",
    // Any trap (no interrupt is enabled: a fault) ends the program.
    ".balign 4",
    "_trap:",
    "j {trap}",
    main = sym main,
    trap = sym trap,
);

// The prologue and epilogue routines that `-C target-feature=+save-restore` calls
// (GCC's `-msave-restore`), in place of a copy of the register saves in every
// function (see the README's "RISC-V code size"). `call t0, __riscv_save_N` stores
// `ra` and `s0` to `s(N-1)` in the psABI's layout (`ra` just below the caller's
// `sp`, then `s0`, `s1`, ... downwards) and lowers `sp` by that area rounded up to
// 16 bytes: 16, 32, 48 or 64, so each group of four `N`s shares an entry point
// (saving the group's largest set). `tail __riscv_restore_N` reloads them, frees the
// area and returns. The groups fall through into one another, as the areas nest.
core::arch::global_asm!(
    ".section .text.__riscv_save, \"ax\"",
    ".global __riscv_save_12",
    "__riscv_save_12:",
    "addi sp, sp, -64",
    "li t1, 0",
    "sw s11, 12(sp)",
    "j 1f",
    ".global __riscv_save_11, __riscv_save_10, __riscv_save_9, __riscv_save_8",
    "__riscv_save_11:",
    "__riscv_save_10:",
    "__riscv_save_9:",
    "__riscv_save_8:",
    "addi sp, sp, -64",
    "li t1, 16",
    "1: sw s10, 16(sp)",
    "sw s9, 20(sp)",
    "sw s8, 24(sp)",
    "sw s7, 28(sp)",
    "j 2f",
    ".global __riscv_save_7, __riscv_save_6, __riscv_save_5, __riscv_save_4",
    "__riscv_save_7:",
    "__riscv_save_6:",
    "__riscv_save_5:",
    "__riscv_save_4:",
    "addi sp, sp, -64",
    "li t1, 32",
    "2: sw s6, 32(sp)",
    "sw s5, 36(sp)",
    "sw s4, 40(sp)",
    "sw s3, 44(sp)",
    "j 3f",
    ".global __riscv_save_3, __riscv_save_2, __riscv_save_1, __riscv_save_0",
    "__riscv_save_3:",
    "__riscv_save_2:",
    "__riscv_save_1:",
    "__riscv_save_0:",
    "addi sp, sp, -64",
    "li t1, 48",
    "3: sw s2, 48(sp)",
    "sw s1, 52(sp)",
    "sw s0, 56(sp)",
    "sw ra, 60(sp)",
    "add sp, sp, t1",
    "jr t0",
    ".section .text.__riscv_restore, \"ax\"",
    ".global __riscv_restore_12",
    "__riscv_restore_12:",
    "lw s11, 12(sp)",
    "addi sp, sp, 16",
    ".global __riscv_restore_11, __riscv_restore_10, __riscv_restore_9, __riscv_restore_8",
    "__riscv_restore_11:",
    "__riscv_restore_10:",
    "__riscv_restore_9:",
    "__riscv_restore_8:",
    "lw s10, 0(sp)",
    "lw s9, 4(sp)",
    "lw s8, 8(sp)",
    "lw s7, 12(sp)",
    "addi sp, sp, 16",
    ".global __riscv_restore_7, __riscv_restore_6, __riscv_restore_5, __riscv_restore_4",
    "__riscv_restore_7:",
    "__riscv_restore_6:",
    "__riscv_restore_5:",
    "__riscv_restore_4:",
    "lw s6, 0(sp)",
    "lw s5, 4(sp)",
    "lw s4, 8(sp)",
    "lw s3, 12(sp)",
    "addi sp, sp, 16",
    ".global __riscv_restore_3, __riscv_restore_2, __riscv_restore_1, __riscv_restore_0",
    "__riscv_restore_3:",
    "__riscv_restore_2:",
    "__riscv_restore_1:",
    "__riscv_restore_0:",
    "lw s2, 0(sp)",
    "lw s1, 4(sp)",
    "lw s0, 8(sp)",
    "lw ra, 12(sp)",
    "addi sp, sp, 16",
    "ret",
);

extern "C" fn main() -> ! {
    crate::start()
}

extern "C" fn trap() -> ! {
    #[cfg(feature = "defmt")]
    defmt::error!("trap");
    exit(false)
}

/// `SYS_EXIT` reasons (ARM's semihosting, which RISC-V's reuses): QEMU exits 0 for
/// `ADP_Stopped_ApplicationExit`, 1 for any other.
const APPLICATION_EXIT: usize = 0x2_0026;
const RUN_TIME_ERROR: usize = 0x2_0023;
const SYS_EXIT: usize = 0x18;

/// Ends the program: QEMU exits with status 0 (`ok`) or 1, through semihosting.
// Out of line: one copy of the call sequence, where inlined the serve loop carried one
// at each of its two exits (the codec's flash share counts them).
#[inline(never)]
pub fn exit(ok: bool) -> ! {
    let reason = if ok { APPLICATION_EXIT } else { RUN_TIME_ERROR };
    // SAFETY: the semihosting call sequence (uncompressed, within one 16-byte block so
    // that the three instructions share a page): with a debugger or QEMU it ends the
    // program; without one `ebreak` traps, and the trap handler calls this again, a
    // loop that parks the core as the `wfi` below would.
    unsafe {
        core::arch::asm!(
            ".option push",
            ".option norvc",
            ".balign 16",
            "slli zero, zero, 0x1f",
            "ebreak",
            "srai zero, zero, 0x7",
            ".option pop",
            in("a0") SYS_EXIT,
            in("a1") reason,
            options(nostack),
        );
    }
    loop {
        // SAFETY: waits for an interrupt; none is enabled, so this parks the core.
        unsafe { core::arch::asm!("wfi", options(nomem, nostack)) };
    }
}

// `memcpy` as a byte loop (20 bytes), in place of `compiler_builtins`' word-wise one
// (392 bytes), which the codec would otherwise pull in: RV32 copies an aggregate of
// more than four words through `memcpy` (`Server::answer` moves its 20-byte
// failure twice), where Thumb-2 inlines the copy. Size over speed, as newlib-nano's
// `memcpy` chooses; the copies here are a few words.
core::arch::global_asm!(
    ".section .text.memcpy, \"ax\"",
    ".global memcpy",
    "memcpy:",
    "mv a3, a0",
    "beqz a2, 2f",
    "1: lbu a4, 0(a1)",
    "sb a4, 0(a3)",
    "addi a1, a1, 1",
    "addi a3, a3, 1",
    "addi a2, a2, -1",
    "bnez a2, 1b",
    "2: ret",
);
