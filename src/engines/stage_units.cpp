#include "engines/stage_units.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nbody {
namespace {

constexpr int kBasePositionUnit = 0, kBaseVelocityUnit = 1, kStagePositionUnit = 2,
              kStageVelocityUnit = 3;
constexpr int kOutPositionImage = 0, kOutVelocityImage = 1, kOutAccelerationImage = 2;
int stageAccelerationUnit(int stage) { return kStageVelocityUnit + stage + 1; }

void setUnits(const gl::UniformProgram& program, const char* name, int firstUnit, int count) {
  std::vector<GLint> units(std::size_t(std::max(count, 0)));
  for (int k = 0; k < count; ++k) units[std::size_t(k)] = firstUnit + k;
  program.setInts(name, units);  // ignored where the compiler dropped an unused sampler
}

}  // namespace

static_assert(textureUnitsForStages(6) <= kGuaranteedTextureUnits,
              "six stages are what every OpenGL implementation has units for");

void checkStageUnitsFit(int available, const char* shaderKind) {
  const int needed = textureUnitsForStages(maxStageCount());
  if (needed > available)
    throw std::runtime_error("methods of " + std::to_string(maxStageCount()) + " stages need " +
                             std::to_string(needed) + " texture units in " + shaderKind +
                             " shaders; this GPU offers " + std::to_string(available));
}

void setStageUnits(const gl::UniformProgram& program, StageInputs inputs) {
  setUnits(program, "uBasePositionMass", kBasePositionUnit, 1);
  setUnits(program, "uBaseVelocity", kBaseVelocityUnit, 1);
  setUnits(program, "uStagePositionMass", kStagePositionUnit, 1);
  setUnits(program, "uStageVelocity", kStageVelocityUnit, inputs.stage + 1);
  setUnits(program, "uStageAcceleration", stageAccelerationUnit(inputs.stage),
           inputs.accelerationInputs);
  setUnits(program, "uOutPositionMass", kOutPositionImage, 1);
  setUnits(program, "uOutVelocity", kOutVelocityImage, 1);
  setUnits(program, "uOutAcceleration", kOutAccelerationImage, 1);
}

void bindStageInputs(const StageTextures& textures, StageInputs inputs) {
  gl::bindTextureToUnit(kBasePositionUnit, GL_TEXTURE_2D, textures.basePositionMass());
  gl::bindTextureToUnit(kBaseVelocityUnit, GL_TEXTURE_2D, textures.baseVelocity());
  gl::bindTextureToUnit(kStagePositionUnit, GL_TEXTURE_2D,
                        textures.stagePositionMass(inputs.stage));
  for (int j = 0; j <= inputs.stage; ++j)
    gl::bindTextureToUnit(kStageVelocityUnit + j, GL_TEXTURE_2D, textures.stageVelocity(j));
  for (int j = 0; j < inputs.accelerationInputs; ++j)
    gl::bindTextureToUnit(stageAccelerationUnit(inputs.stage) + j, GL_TEXTURE_2D_ARRAY,
                          textures.acceleration(j));
}

void bindComputeOutputs(const StageTextures& textures, int stage, int stageCount) {
  gl::bindImageToWrite(kOutPositionImage, textures.outputPositionMass(stage, stageCount), false);
  gl::bindImageToWrite(kOutVelocityImage, textures.outputVelocity(stage, stageCount), false);
  gl::bindImageToWrite(kOutAccelerationImage, textures.acceleration(stage), true);
}

}  // namespace nbody
