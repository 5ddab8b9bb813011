// Units of the pipeline parser: what each part of the format decodes to, and
// the exact diagnostic each invalid class gets.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "tether/worker/pipeline.hpp"

namespace tether::worker {
namespace {

struct Parsed {
  Error err;
  Pipeline pipeline;
  std::vector<PipelineDiagnostic> diagnostics;
  std::string Messages() const {
    std::string out;
    for (const auto& d : diagnostics) out += d.ToString() + "\n";
    return out;
  }
};

Parsed Parse(const std::string& text) {
  Parsed p;
  p.err = ParsePipeline(text, "p.yml", &p.pipeline, &p.diagnostics);
  return p;
}

// The only diagnostic of an invalid text.
std::string OnlyError(const std::string& text) {
  Parsed p = Parse(text);
  EXPECT_FALSE(p.err.ok());
  EXPECT_EQ(p.diagnostics.size(), 1u) << p.Messages();
  return p.diagnostics.empty() ? "" : p.diagnostics[0].ToString();
}

const char* kStep = "    image: alpine\n    commands: [\"true\"]\n";

TEST(PipelineParse, MinimalStepsPipeline) {
  Parsed p = Parse("version: \"1\"\nsteps:\n  - name: build\n    image: alpine\n"
                   "    commands:\n      - echo one\n      - echo two\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  EXPECT_EQ(p.pipeline.version, "1");
  ASSERT_EQ(p.pipeline.steps.size(), 1u);
  const Container& c = p.pipeline.steps[0];
  EXPECT_EQ(c.name, "build");
  EXPECT_EQ(c.image, "alpine");
  EXPECT_EQ(c.commands, (std::vector<std::string>{"echo one", "echo two"}));
  EXPECT_EQ(c.pos.line, 3);
  EXPECT_EQ(c.pos.column, 5);
  EXPECT_TRUE(c.unsupported.empty());
}

TEST(PipelineParse, VersionAsIntegerIsItsText) {
  Parsed p = Parse(std::string("version: 1\nsteps:\n  - name: a\n") + kStep);
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  EXPECT_EQ(p.pipeline.version, "1");
}

TEST(PipelineParse, CommandsAsOneBlockScalarIsOneCommand) {
  Parsed p = Parse("version: \"1\"\nsteps:\n  - name: a\n    image: alpine\n"
                   "    commands: |\n      echo one\n      echo two\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  EXPECT_EQ(p.pipeline.steps[0].commands, (std::vector<std::string>{"echo one\necho two\n"}));
}

TEST(PipelineParse, EnvironmentMapListAndNonStringScalars) {
  Parsed p = Parse("version: \"1\"\nenvironment:\n  - GLOBAL=g=1\n  - EMPTY=\n"
                   "steps:\n  - name: a\n    image: alpine\n    commands: [\"true\"]\n"
                   "    environment:\n      PORT: 8080\n      DEBUG: true\n      NONE:\n"
                   "      QUOTED: \"x y\"\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  EXPECT_EQ(p.pipeline.environment.at("GLOBAL"), "g=1");
  EXPECT_EQ(p.pipeline.environment.at("EMPTY"), "");
  const auto& env = p.pipeline.steps[0].environment;
  EXPECT_EQ(env.at("PORT"), "8080");
  EXPECT_EQ(env.at("DEBUG"), "true");
  EXPECT_EQ(env.at("NONE"), "");
  EXPECT_EQ(env.at("QUOTED"), "x y");
}

TEST(PipelineParse, EnvironmentListItemWithoutEqualsIsAnError) {
  EXPECT_EQ(OnlyError("version: \"1\"\nsteps:\n  - name: a\n    image: alpine\n    commands: [x]\n"
                      "    environment:\n      - 'This: Shouldnt Panic'\n"),
            "p.yml:7:9: error: environment list item in step `a` must be KEY=VALUE, got `This: "
            "Shouldnt Panic`");
}

TEST(PipelineParse, AnchorsAliasesAndMergeKeys) {
  Parsed p = Parse(
      "version: \"1\"\n"
      "x-base: &base\n  image: alpine\n  pull: always\n  environment: {A: base}\n"
      "x-extra: &extra\n  image: debian\n  detach: true\n"
      "steps:\n"
      "  - name: one\n    <<: *base\n    commands: [\"true\"]\n"
      "  - name: two\n    <<: [*extra, *base]\n    commands: [\"true\"]\n"
      "  - name: three\n    <<: *base\n    image: busybox\n    commands: [\"true\"]\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  ASSERT_EQ(p.pipeline.steps.size(), 3u);
  EXPECT_EQ(p.pipeline.steps[0].image, "alpine");
  EXPECT_EQ(p.pipeline.steps[0].pull, "always");
  EXPECT_EQ(p.pipeline.steps[0].environment.at("A"), "base");
  EXPECT_EQ(p.pipeline.steps[1].image, "debian");  // the first listed map wins
  EXPECT_TRUE(p.pipeline.steps[1].detach);
  EXPECT_EQ(p.pipeline.steps[1].pull, "always");
  EXPECT_EQ(p.pipeline.steps[2].image, "busybox");  // an explicit key wins over a merge
}

TEST(PipelineParse, SeveralMergeKeysInOneMapAreCollapsedWithANote) {
  Parsed p = Parse("version: \"1\"\n<<: &img\n  image: alpine\n<<: &cmd\n  commands: [\"true\"]\n"
                   "steps:\n  - name: a\n    <<: *img\n    <<: *cmd\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  EXPECT_EQ(p.pipeline.steps[0].image, "alpine");
  EXPECT_EQ(p.pipeline.steps[0].commands, std::vector<std::string>{"true"});
  bool noted = false;
  for (const auto& n : p.pipeline.notes) noted |= n.find("duplicate << keys") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(PipelineParse, MergeOfAScalarIsAnError) {
  EXPECT_EQ(OnlyError("version: \"1\"\nx-a: &a hello\nsteps:\n  - name: a\n    <<: *a\n" +
                      std::string(kStep)),
            "p.yml:2:6: error: the value of a `<<` merge key must be a mapping or a list of mappings");
}

TEST(PipelineParse, AnchoredBlockScalarInASequenceParses) {
  // yaml-cpp 0.7 fails on `- &name |-`; the parser works around it, keeping lines.
  Parsed p = Parse("version: \"1\"\nx-cmds:\n  - &install |-\n    make install\n"
                   "steps:\n  - name: a\n    image: alpine\n    commands:\n      - *install\n"
                   "    bogus: 1\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  ASSERT_EQ(p.pipeline.warnings.size(), 1u);
  EXPECT_EQ(p.pipeline.warnings[0].ToString(),
            "p.yml:10:5: warning: unknown key `bogus` in step `a` is ignored (as by Vela)");
  EXPECT_EQ(p.pipeline.steps[0].commands, std::vector<std::string>{"make install"});
}

TEST(PipelineParse, DollarTextIsKeptForTheShellAndDoubleDollarIsUnescaped) {
  Parsed p = Parse("version: \"1\"\nsteps:\n  - name: a\n    image: alpine\n    commands:\n"
                   "      - echo ${VELA_BUILD_TAG##*/} ${VELA_BUILD_COMMIT:0:7} $HOME\n"
                   "      - echo $${NOT_SUBSTITUTED}\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  EXPECT_EQ(p.pipeline.steps[0].commands[0],
            "echo ${VELA_BUILD_TAG##*/} ${VELA_BUILD_COMMIT:0:7} $HOME");
  EXPECT_EQ(p.pipeline.steps[0].commands[1], "echo ${NOT_SUBSTITUTED}");
}

TEST(PipelineParse, SecretsShortAndSourceTargetFormsAndTopLevelSources) {
  Parsed p = Parse("version: \"1\"\nsteps:\n  - name: a\n    image: alpine\n    commands: [env]\n"
                   "    secrets:\n      - docker_password\n      - source: api_key\n        target: "
                   "MY_KEY\n      - undeclared\n"
                   "secrets:\n  - name: docker_password\n    key: org/repo/docker_password\n"
                   "    engine: native\n    type: repo\n  - name: api_key\n    from_file: /run/key\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  const Container& c = p.pipeline.steps[0];
  ASSERT_EQ(c.secret_refs.size(), 3u);
  EXPECT_EQ(c.secret_refs[0].source, "docker_password");
  EXPECT_EQ(c.secret_refs[0].target, "DOCKER_PASSWORD");
  EXPECT_EQ(c.secret_refs[1].source, "api_key");
  EXPECT_EQ(c.secret_refs[1].target, "MY_KEY");
  EXPECT_EQ(c.secrets, (std::vector<std::string>{"docker_password", "api_key", "undeclared"}));
  ASSERT_EQ(p.pipeline.secrets.size(), 3u);
  EXPECT_EQ(p.pipeline.secrets[0].from_env, "DOCKER_PASSWORD");
  EXPECT_EQ(p.pipeline.secrets[1].from_file, "/run/key");
  EXPECT_EQ(p.pipeline.secrets[1].from_env, "");
  EXPECT_EQ(p.pipeline.secrets[2].name, "undeclared");  // implicit, with a note
  EXPECT_EQ(p.pipeline.secrets[2].from_env, "UNDECLARED");
}

TEST(PipelineParse, StagesWithNeedsAsStringOrListAndStageEnvironment) {
  Parsed p = Parse("version: \"1\"\nstages:\n  build:\n    environment: {S: stage, A: stage}\n"
                   "    steps:\n      - name: a\n        image: alpine\n        commands: [\"true\"]\n"
                   "        environment: {A: step}\n"
                   "  test:\n    needs: build\n    steps:\n      - name: a\n        image: alpine\n"
                   "        commands: [\"true\"]\n"
                   "  deploy:\n    needs: [build, test, clone]\n    steps:\n      - name: a\n"
                   "        image: alpine\n        commands: [\"true\"]\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  ASSERT_EQ(p.pipeline.stages.size(), 3u);
  EXPECT_EQ(p.pipeline.stages[1].needs, std::vector<std::string>{"build"});
  EXPECT_EQ(p.pipeline.stages[2].needs, (std::vector<std::string>{"build", "test", "clone"}));
  EXPECT_EQ(p.pipeline.stages[0].steps[0].environment.at("S"), "stage");
  EXPECT_EQ(p.pipeline.stages[0].steps[0].environment.at("A"), "step");
}

TEST(PipelineParse, RulesetContinueIsHonouredOtherRulesRecorded) {
  Parsed p = Parse("version: \"1\"\nsteps:\n  - name: a\n    image: alpine\n    commands: [x]\n"
                   "    ruleset:\n      event: [push, tag]\n      continue: true\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  EXPECT_TRUE(p.pipeline.steps[0].continue_on_failure);
  ASSERT_EQ(p.pipeline.steps[0].unsupported.count("ruleset"), 1u);
  EXPECT_NE(p.pipeline.steps[0].unsupported.at("ruleset").find("event"), std::string::npos);
}

TEST(PipelineParse, PluginStepIsAcceptedAndRecordedAsNotRunnable) {
  Parsed p = Parse("version: \"1\"\nsteps:\n  - name: publish\n    image: target/vela-kaniko\n"
                   "    pull: true\n    parameters:\n      registry: index.docker.io\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  const Container& c = p.pipeline.steps[0];
  EXPECT_TRUE(c.commands.empty());
  EXPECT_EQ(c.pull, "always");
  EXPECT_EQ(c.unsupported.count("parameters"), 1u);
  EXPECT_EQ(c.unsupported.count("image"), 1u);
  std::vector<PipelineDiagnostic> refused;
  EXPECT_TRUE(CheckRunnable(p.pipeline, &refused).ok());  // skipped, not refused
}

TEST(PipelineParse, TemplateStepIsAcceptedButNotRunnable) {
  Parsed p = Parse("version: \"1\"\ntemplates:\n  - name: go\n    source: github.com/x/y.yml\n"
                   "    type: github\nsteps:\n  - name: build\n    template:\n      name: go\n");
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  EXPECT_EQ(p.pipeline.steps[0].uses_template, "go");
  std::vector<PipelineDiagnostic> refused;
  Error err = CheckRunnable(p.pipeline, &refused);
  EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].ToString(),
            "p.yml:7:5: error: unsupported: step `build` calls template `go`; tether-worker does "
            "not expand templates");
}

TEST(PipelineParse, TimeoutExtension) {
  Parsed p = Parse(std::string("version: \"1\"\ntimeout: 1h30m\nsteps:\n  - name: a\n") + kStep);
  ASSERT_TRUE(p.err.ok()) << p.Messages();
  ASSERT_TRUE(p.pipeline.timeout.has_value());
  EXPECT_EQ(p.pipeline.timeout->count(), 5400);
  Parsed minutes = Parse(std::string("version: \"1\"\ntimeout: 30\nsteps:\n  - name: a\n") + kStep);
  EXPECT_EQ(minutes.pipeline.timeout->count(), 1800);
  EXPECT_EQ(OnlyError(std::string("version: \"1\"\ntimeout: soon\nsteps:\n  - name: a\n") + kStep),
            "p.yml:2:10: error: `timeout` `soon` is not a duration (e.g. 30m, 1h30m, 90s, or minutes)");
}

TEST(PipelineErrors, UnsafeNames) {
  for (const char* name : {"a/b", "..", ".hidden", "\"tab\\there\""}) {
    SCOPED_TRACE(name);
    std::string message =
        OnlyError(std::string("version: \"1\"\nsteps:\n  - name: ") + name + "\n" + kStep);
    EXPECT_EQ(message.rfind("p.yml:3:11: error: step name", 0), 0u) << message;
  }
}

TEST(PipelineErrors, DuplicateMappingKey) {
  EXPECT_EQ(OnlyError(std::string("version: \"1\"\nsteps:\n  - name: a\n") + kStep +
                      "    image: debian\n"),
            "p.yml:6:5: error: duplicate key `image` in this mapping (first at line 4)");
}

TEST(PipelineErrors, EveryProblemInFileOrderAndWarningsApart) {
  Parsed p = Parse("steps:\n  - name: a\n    image: alpine\n    comands: [x]\n"
                   "  - name: a\n    image: alpine\n    commands: []\n");
  ASSERT_FALSE(p.err.ok());
  EXPECT_EQ(p.Messages(),
            "p.yml:1:1: error: missing `version` (Vela requires it, e.g. version: \"1\")\n"
            "p.yml:2:5: error: step `a` has nothing to do: give it `commands` (or, for a Vela "
            "plugin, `parameters`)\n"
            "p.yml:5:5: error: duplicate step name `a` in the pipeline (first at line 2)\n"
            "p.yml:7:15: error: empty `commands` in step `a`: give at least one command\n");
  ASSERT_EQ(p.pipeline.warnings.size(), 1u);
  EXPECT_EQ(p.pipeline.warnings[0].ToString(),
            "p.yml:4:5: warning: unknown key `comands` in step `a` is ignored (as by Vela); did you "
            "mean `commands`?");
}

TEST(PipelineErrors, StrictMakesEveryWarningAnErrorInFileOrder) {
  const std::string text = "version: \"1\"\nsteps:\n  - name: a\n    image: alpine\n"
                           "    commands: [x]\n    pull: sometimes\n    bogus: 1\n";
  Parsed lax = Parse(text);
  EXPECT_TRUE(lax.err.ok()) << lax.Messages();
  EXPECT_EQ(lax.pipeline.warnings.size(), 2u);
  EXPECT_EQ(lax.pipeline.steps[0].pull, "never");
  Parsed strict;
  strict.err = ParsePipeline(text, "p.yml", &strict.pipeline, &strict.diagnostics, true);
  EXPECT_TRUE(strict.err.Is(ErrorCode::kInvalidArgument));
  EXPECT_TRUE(strict.pipeline.warnings.empty());
  ASSERT_EQ(strict.diagnostics.size(), 2u) << strict.Messages();
  EXPECT_EQ(strict.diagnostics[0].ToString().rfind("p.yml:6:11: error: pull policy `sometimes`", 0), 0u);
  EXPECT_EQ(strict.diagnostics[1].ToString(),
            "p.yml:7:5: error: unknown key `bogus` in step `a` is ignored (as by Vela) [--strict]");
}

TEST(PipelineErrors, NeedsUnknownSelfAndCycle) {
  Parsed p = Parse("version: \"1\"\nstages:\n"
                   "  a:\n    needs: [b]\n    steps:\n      - name: s\n        image: i\n        commands: [x]\n"
                   "  b:\n    needs: a\n    steps:\n      - name: s\n        image: i\n        commands: [x]\n"
                   "  c:\n    needs: [c, nope]\n    steps:\n      - name: s\n        image: i\n        commands: [x]\n");
  EXPECT_EQ(p.Messages(),
            "p.yml:3:3: error: stages needs form a cycle: a -> b -> a\n"
            "p.yml:15:3: error: stage `c` needs itself\n"
            "p.yml:15:3: error: stage `c` needs `nope`, which is not a stage\n");
}

TEST(PipelineErrors, StepsAndStagesTogetherAndNothingToRun) {
  EXPECT_EQ(OnlyError("version: \"1\"\nenvironment: {A: b}\n"),
            "p.yml:1:1: error: no `steps`, `stages` or `templates`: the pipeline does nothing");
  Parsed both = Parse(std::string("version: \"1\"\nsteps:\n  - name: a\n") + kStep +
                      "stages:\n  s:\n    steps:\n      - name: a\n        image: i\n        commands: [x]\n");
  EXPECT_NE(both.Messages().find("p.yml:6:1: error: `steps` and `stages` cannot be used together"),
            std::string::npos) << both.Messages();
  // Stages first: the error goes to the later key, `steps`.
  Parsed reversed = Parse("version: \"1\"\nstages:\n  s:\n    steps:\n      - name: a\n"
                          "        image: i\n        commands: [x]\nsteps:\n  - name: a\n" +
                          std::string(kStep));
  EXPECT_NE(reversed.Messages().find("p.yml:8:1: error: `steps` and `stages` cannot be used together"),
            std::string::npos) << reversed.Messages();
}

TEST(PipelineErrors, VersionLegacyAndTopLevelNotAMapping) {
  EXPECT_EQ(OnlyError(std::string("version: legacy\nsteps:\n  - name: a\n") + kStep),
            "p.yml:1:10: error: version `legacy` is no longer supported (as in Vela)");
  EXPECT_EQ(OnlyError("- a\n- b\n"),
            "p.yml:1:1: error: the top level must be a mapping of pipeline keys (version, steps, ...)");
}

TEST(PipelineErrors, TopLevelExtrasWithoutAnAnchorOrXPrefixWarn) {
  Parsed ok = Parse(std::string("version: \"1\"\nx-note: plain\naliases:\n  - &a {image: alpine}\n"
                                "steps:\n  - name: a\n") + kStep);
  EXPECT_TRUE(ok.err.ok()) << ok.Messages();
  EXPECT_TRUE(ok.pipeline.warnings.empty());
  Parsed typo = Parse(std::string("version: \"1\"\nstep:\n  - name: a\nsteps:\n  - name: a\n") + kStep);
  EXPECT_TRUE(typo.err.ok()) << typo.Messages();
  ASSERT_EQ(typo.pipeline.warnings.size(), 1u);
  EXPECT_EQ(typo.pipeline.warnings[0].ToString(),
            "p.yml:2:1: warning: unknown key `step` in the top level is ignored (as by Vela); did "
            "you mean `steps`?");
}

TEST(PipelineErrors, SyntaxErrorHasItsPosition) {
  EXPECT_EQ(OnlyError("version: \"1\"\nsteps:\n  - name: a\n    image: b: c\n"),
            "p.yml:4:13: error: YAML syntax: illegal map value");
}

TEST(PipelineLoad, MissingFileIsAnIoErrorNamingIt) {
  Pipeline pipeline;
  std::vector<PipelineDiagnostic> diagnostics;
  Error err = LoadPipeline("/nonexistent/dir/.vela.yml", &pipeline, &diagnostics);
  EXPECT_EQ(err.code(), ErrorCode::kIo);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].ToString(),
            "/nonexistent/dir/.vela.yml: error: cannot read the pipeline file: no such file");
}

TEST(PipelineLoad, LoadsAFileFromDisk) {
  char path[] = "/tmp/pipeline_test_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "version: \"1\"\nsteps:\n  - name: a\n" << kStep;
  Pipeline pipeline;
  std::vector<PipelineDiagnostic> diagnostics;
  EXPECT_TRUE(LoadPipeline(path, &pipeline, &diagnostics).ok());
  EXPECT_EQ(pipeline.file, path);
  EXPECT_EQ(pipeline.steps.size(), 1u);
  std::remove(path);
}

}  // namespace
}  // namespace tether::worker
