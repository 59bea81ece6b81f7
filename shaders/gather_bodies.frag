// The texel gather_bodies.vert read, written as it is.
flat in vec4 vTexel;
layout(location = 0) out vec4 outTexel;
void main() { outTexel = vTexel; }
