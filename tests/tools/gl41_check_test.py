#!/usr/bin/env python3
"""tools/gl41_check.py on made-up sources, in a made-up build folder that holds the real build's
GL 4.5 loader: a GL 4.3 call, enum or loader flag fails the check, naming it; GL 4.1's calls, GL 4.3 names
in string literals and a GL 4.3 call that the source defines itself as an inline stand-in (as
gl/desktop_calls.h does) pass it.

    gl41_check_test.py CHECK BUILD_DIR SCRATCH_DIR"""

import json
import os
import shutil
import subprocess
import sys

CASES = {  # name: (source body, the name a refusal must give, or None where it passes)
    "call_43": ("void f() { glDispatchCompute(1, 1, 1); }", "glDispatchCompute"),
    "enum_43": ("GLenum target() { return GL_SHADER_STORAGE_BUFFER; }", "GL_SHADER_STORAGE_BUFFER"),
    "flag_43": ("bool computes() { return GLAD_GL_VERSION_4_3 != 0; }", "GLAD_GL_VERSION_4_3"),
    "only_41": ("void f() { glDrawArrays(GL_POINTS, 0, 1'000); glFlush(); }", None),
    "in_literals": ('const char* a = "glDispatchCompute(GL_COMPUTE_SHADER)";\n'
                    'const char* b = R"(#extension GL_ARB_compute_shader : "require")";\n'
                    "char c = '\\'';", None),
    "stand_in": ("#if !defined(GL_VERSION_4_5)\n"
                 "inline void glDispatchCompute(GLuint, GLuint, GLuint) {}\n#endif\n"
                 "void f() { glDispatchCompute(1, 1, 1); }", None),
}


def made_build(build, scratch):
    """SCRATCH/build: the real 4.5 loader's header and a compile command for each case's source."""
    fake = os.path.join(scratch, "build")
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(os.path.join(build, "glad", "include"), os.path.join(fake, "glad", "include"))
    os.makedirs(os.path.join(scratch, "src"))
    entries = []
    for name, (body, _) in CASES.items():
        source = os.path.join(scratch, "src", name + ".cpp")
        with open(source, "w") as f:
            f.write("#include <glad/gl.h>\n" + body + "\n")
        command = ["c++", "-std=c++20", "-isystem", os.path.join(fake, "glad", "include"), "-c",
                   source, "-o", source + ".o"]
        entries.append({"directory": fake, "file": source, "command": " ".join(command)})
    with open(os.path.join(fake, "compile_commands.json"), "w") as f:
        json.dump(entries, f)
    return fake


def main():
    check, build, scratch = sys.argv[1:4]
    fake = made_build(os.path.realpath(build), os.path.realpath(scratch))
    wrong = []
    for name, (_, refused) in CASES.items():
        source = os.path.join(os.path.realpath(scratch), "src", name + ".cpp")
        done = subprocess.run([sys.executable, check, fake, source], capture_output=True, text=True)
        said = done.stdout + done.stderr
        if refused is None and done.returncode != 0:
            wrong.append(f"{name}: refused\n{said}")
        elif refused is not None and (done.returncode == 0 or refused not in said):
            wrong.append(f"{name}: not refused naming {refused}\n{said}")
        else:
            print(f"ok: {name}")
    print("\n".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
