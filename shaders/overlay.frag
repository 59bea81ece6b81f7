// An overlay's colour times the font atlas (white, with the glyphs' coverage in alpha; shapes use
// its white texel).

uniform sampler2D uAtlas;

in vec2 vTexCoord;
in vec4 vColour;

out vec4 fragColour;

void main() { fragColour = vColour * texture(uAtlas, vTexCoord); }
