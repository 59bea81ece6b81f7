#include "engines/stage_kernel.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace nbody {
namespace {

std::string describe(const KernelSources& sources, const gl::Defines& defines) {
  std::string key;
  for (const auto& stage : sources.stages)
    for (const std::string& file : stage.files) key += file + ";";
  for (const std::string& define : defines.lines()) key += define + ";";
  return key;
}

ProgramDump& programDump() {
  static ProgramDump dump;
  return dump;
}

void dumpProgramBinary(GLuint program, const KernelSources& sources, const gl::Defines& defines) {
  if (!programDump()) return;
  GLint length = 0;
  glGetProgramiv(program, GL_PROGRAM_BINARY_LENGTH, &length);
  std::vector<char> binary(std::size_t(std::max(length, 0)));
  GLenum format = 0;
  glGetProgramBinary(program, length, nullptr, &format, binary.data());
  programDump()(describe(sources, defines), binary);
}

}  // namespace

void setProgramDump(ProgramDump dump) { programDump() = std::move(dump); }

void StageKernel::use(const Method& method, const StepParams& params, int stage, std::size_t bodies,
                      std::size_t paddedBodies, int sliceLength) const {
  glUseProgram(program.id());
  const auto setWeights = [&](std::string_view name, const std::vector<double>& tableauWeights) {
    std::vector<float> weights;
    for (double w : tableauWeights) weights.push_back(float(params.dt * w));
    program.setFloats(name, weights);
  };
  setWeights("uPositionWeight", method.positionWeights(stage));
  setWeights("uVelocityWeight", method.velocityWeights(stage));
  program.setFloat("uSoftening2", params.softening * params.softening);
  program.setFloat("uGravity", params.gravity);
  program.setInt("uBodyCount", int(bodies));
  program.setInt("uPaddedCount", int(paddedBodies));
  program.setInt("uSliceLength", sliceLength);
  setPotentialUniforms(program, params);
  setContactUniforms(program, params);
  startAt(0);
}

void StageKernel::startAt(std::size_t body) const { program.setInt("uFirstBody", int(body)); }

void StageKernel::cover(std::size_t first, std::size_t last) const {
  startAt(first);
  program.setInt("uLastBody", int(last));
}

const StageKernel& StageKernelCache::get(const KernelSources& sources, const gl::Defines& defines,
                                         StageInputs inputs) {
  Key key{&sources, defines, inputs.stage, inputs.accelerationInputs};
  auto found = kernels_.find(key);
  if (found != kernels_.end()) return found->second;

  StageKernel kernel{gl::UniformProgram(gl::buildProgram(sources.stages, defines))};
  setStageUnits(kernel.program, inputs);
  dumpProgramBinary(kernel.program.id(), sources, defines);
  return kernels_.emplace(std::move(key), std::move(kernel)).first->second;
}

int potentialComponents(const StepParams& params) {
  return params.potential ? int(params.potential->components().size()) : 0;
}

void setPotentialUniforms(const gl::UniformProgram& program, const StepParams& params) {
  if (!params.potential) return;
  std::vector<GLint> kinds;
  std::vector<glm::vec4> parameters;
  std::vector<glm::vec3> centres;
  for (const GpuPotentialComponent& component :
       params.potential->gpuComponents(params.time(), params.gravity)) {
    kinds.push_back(component.kind);
    parameters.push_back(component.parameters);
    centres.push_back(component.centre);
  }
  program.setInts("uPotentialKind", kinds);
  program.setVec4s("uPotentialParameters", parameters);
  program.setVec3s("uPotentialCentre", centres);
}

int contactScreening(const StepParams& params) { return params.contactScreen ? 1 : 0; }

void setContactUniforms(const gl::UniformProgram& program, const StepParams& params) {
  if (!params.contactScreen) return;
  program.setFloat("uContactRadius", params.contactScreen->radius);
  program.setFloat("uContactVolume", params.contactScreen->volume);
  program.setInt("uContactSlot", params.contactScreen->slot);
}

bool softened(const StepParams& params) {
  // eps >= 1e-6: eps^2 >= 1e-12 is a normal float and 1/r^3 <= 1e18.
  return params.softening >= 1e-6;
}

}  // namespace nbody
