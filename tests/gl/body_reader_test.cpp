// The picked bodies read back in one go (BodyReader): every asked body bit for bit and in the order
// asked, from the fragment engine's textures (padding texels past the last body) and after the
// compute engine's image stores; the GL state as it was.

#include <cstring>
#include <numeric>
#include <random>

#include "engines/registry.h"
#include "gl/gl_test.h"
#include "physics/method.h"
#include "physics/scenes.h"
#include "render/offscreen.h"
#include "render/picking.h"
#include "render/state_textures.h"

namespace nbody {
namespace {

using test::GlTest;

class BodyReaderTest : public GlTest {};

void expectBodies(const State& state, const std::vector<std::size_t>& indices,
                  const std::vector<BodyNow>& read, const std::string& what) {
  ASSERT_EQ(read.size(), indices.size()) << what;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t i = indices[k];
    EXPECT_EQ(std::memcmp(&read[k].positionMass, &state.positionMass[i], sizeof(glm::vec4)), 0)
        << what << ": body " << i;
    EXPECT_EQ(glm::vec3(read[k].velocity), glm::vec3(state.velocity[i])) << what << ": body " << i;
    EXPECT_EQ(read[k].velocity.w, float(componentOf(state, i)))
        << what << ": body " << i << "'s component";
  }
}

TEST_F(BodyReaderTest, ReadsTheAskedBodiesInTheirOrderFromEveryEngine) {
  State state =
      findScene("galaxies")->generate(1001, 4);  // 1001: not a whole number of texture rows
  std::vector<std::size_t> indices(BodyReader::kMostBodies);
  std::mt19937 random(2);
  for (std::size_t& index : indices) index = random() % state.size();
  indices.front() = state.size() - 1;
  BodyReader reader;
  for (const std::string engineName : {"fragment", "compute", "tree"}) {
    const std::unique_ptr<Engine> engine = createEngine(engineName, {});
    engine->upload(state);
    engine->step(*findMethod("euler"),
                 StepParams{});  // the compute engines then write by image stores
    UploadedStateTextures storage;
    // Read straight after the step, before download() waits and adds a barrier of its own.
    const std::vector<BodyNow> read = reader.read(gpuStateOf(*engine, storage), indices);
    const State now = engine->download();
    expectBodies(now, indices, read, engineName);
    const std::vector<std::size_t> few = {7, 3, 1000};
    expectBodies(now, few, reader.read(gpuStateOf(*engine, storage), few), engineName + ", three");
  }
}

TEST_F(BodyReaderTest, PutsBackTheGlStateItChanges) {
  const State state = findScene("plummer")->generate(100, 1);
  UploadedStateTextures textures;
  textures.upload(state);
  BodyReader reader;
  gl::VertexArray vertexArray = gl::VertexArray::create();
  gl::Texture unrelated = gl::Texture::create();
  glTextureStorage2D(unrelated.id(), 1, GL_RGBA8, 4, 4);
  renderOffscreen({32, 32}, [&] {
    glViewport(1, 2, 20, 10);
    glEnable(GL_BLEND);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glEnable(GL_CULL_FACE);
    glBindVertexArray(vertexArray.id());
    glBindTextureUnit(1, unrelated.id());
    GLint framebuffer = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
    expectBodies(state, {5, 6}, reader.read(textures.view(), {5, 6}), "inside a picture");
    EXPECT_TRUE(glIsEnabled(GL_PROGRAM_POINT_SIZE));
    EXPECT_TRUE(glIsEnabled(GL_CULL_FACE));
    GLint viewport[4], now = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &now);
    EXPECT_EQ(now, GLint(vertexArray.id()));
    glGetIntegerv(GL_CURRENT_PROGRAM, &now);
    EXPECT_EQ(now, 0);
    glActiveTexture(GL_TEXTURE1);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &now);
    glActiveTexture(GL_TEXTURE0);
    EXPECT_EQ(now, GLint(unrelated.id()));
    glGetIntegerv(GL_VIEWPORT, viewport);
    EXPECT_EQ(std::vector<GLint>(viewport, viewport + 4), (std::vector<GLint>{1, 2, 20, 10}));
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &now);
    EXPECT_EQ(now, framebuffer);
    EXPECT_TRUE(glIsEnabled(GL_BLEND));
  });
}

}  // namespace
}  // namespace nbody
