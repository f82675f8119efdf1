// The translation unit that builds the precompiled header (CMakeLists.txt, UMWELT_PCH).
