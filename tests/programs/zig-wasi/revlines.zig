//! revlines: writes the lines of a text in reverse order. A WASI preview 1 command used as a
//! real test program of the profiler (tests/programs/README.md).
//!
//!     revlines [--exit CODE] INPUT OUTPUT
//!
//! INPUT is a file or "-" for stdin; INPUT and OUTPUT are paths relative to the first
//! preopened directory (Zig's `std.fs.cwd()` on WASI is file descriptor 3). A line ends at
//! '\n' (not part of it); a last line without '\n' counts too, so an empty input has no line.
//! OUTPUT receives the lines last first, each as REVLINES_PREFIX (environment, default empty),
//! the line, '\n'. Stdout gets the counts, stderr a progress line.
//!
//! Exit codes: 0 done, 1 input or output failed, 2 usage, 3 no line in the input, or CODE.

const std = @import("std");

const usage = "usage: revlines [--exit CODE] INPUT OUTPUT\n";

/// Larger inputs are refused (error.FileTooBig, exit 1).
const max_input_bytes = 64 << 20;

pub fn main() u8 {
    return run() catch |err| {
        std.debug.print("revlines: {s}\n", .{@errorName(err)});
        return 1;
    };
}

fn run() !u8 {
    const gpa = std.heap.wasm_allocator;
    const args = try std.process.argsAlloc(gpa);
    defer std.process.argsFree(gpa, args);

    var exit_code: ?u8 = null;
    var paths: [2][]const u8 = undefined;
    var npaths: usize = 0;
    var i: usize = 1;
    while (i < args.len) : (i += 1) {
        if (std.mem.eql(u8, args[i], "--exit")) {
            i += 1;
            if (i == args.len) return usageError("revlines: --exit needs a value\n");
            exit_code = std.fmt.parseInt(u8, args[i], 10) catch return usageError("revlines: --exit takes 0 to 255\n");
        } else if (npaths < 2) {
            paths[npaths] = args[i];
            npaths += 1;
        } else return usageError(usage);
    }
    if (npaths != 2) return usageError(usage);
    const input = paths[0];
    const output = paths[1];

    const prefix = std.process.getEnvVarOwned(gpa, "REVLINES_PREFIX") catch |err| switch (err) {
        error.EnvironmentVariableNotFound => try gpa.dupe(u8, ""),
        else => return err,
    };
    defer gpa.free(prefix);

    const text = (if (std.mem.eql(u8, input, "-"))
        std.fs.File.stdin().readToEndAlloc(gpa, max_input_bytes)
    else
        std.fs.cwd().readFileAlloc(gpa, input, max_input_bytes)) catch |err| {
        std.debug.print("revlines: cannot read {s}: {s}\n", .{ input, @errorName(err) });
        return 1;
    };
    defer gpa.free(text);
    std.debug.print("revlines: read {d} bytes from {s}\n", .{ text.len, input });

    var lines: std.ArrayList([]const u8) = .empty;
    defer lines.deinit(gpa);
    var longest: usize = 0;
    var start: usize = 0;
    while (start < text.len) {
        const end = std.mem.indexOfScalarPos(u8, text, start, '\n') orelse text.len;
        try lines.append(gpa, text[start..end]);
        longest = @max(longest, end - start);
        start = end + 1;
    }
    if (lines.items.len == 0) {
        std.debug.print("revlines: no lines in {s}\n", .{input});
        return 3;
    }

    const file = std.fs.cwd().createFile(output, .{}) catch |err| {
        std.debug.print("revlines: cannot write {s}: {s}\n", .{ output, @errorName(err) });
        return 1;
    };
    defer file.close();
    var file_buffer: [4096]u8 = undefined;
    var file_writer = file.writer(&file_buffer);
    const out = &file_writer.interface;
    var j = lines.items.len;
    while (j > 0) {
        j -= 1;
        try out.print("{s}{s}\n", .{ prefix, lines.items[j] });
    }
    try out.flush();

    var stdout_buffer: [256]u8 = undefined;
    var stdout_writer = std.fs.File.stdout().writerStreaming(&stdout_buffer);
    const stdout = &stdout_writer.interface;
    try stdout.print("input: {s}\nlines: {d}\nbytes: {d}\nlongest: {d}\n", .{ input, lines.items.len, text.len, longest });
    try stdout.flush();

    if (exit_code) |code| {
        std.debug.print("revlines: exiting with {d} as asked\n", .{code});
        return code;
    }
    return 0;
}

fn usageError(message: []const u8) u8 {
    std.debug.print("{s}", .{message});
    return 2;
}
