// Sentence splitter (core/text/sentence_splitter): each rule on snippets copied from the real IMDB and
// 20news files, whole-file properties on ../shared/data (no markup token survives, every <br /> breaks),
// and bad input (no boundary, 10,000 sentences, one-token sentences, empty lines, markup).
#include "text/sentence_splitter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "text/dataset.h"

namespace attnlab {
namespace {

using Texts = std::vector<std::string>;

TEST(SentenceSplitter, AbbreviationsDoNotSplit) {
  // IMDB train: "... himself. I think Mr. Disney would heartily approve ..."
  EXPECT_EQ(split_sentence_texts("This is a film worthy of Walt Disney, himself. I think Mr. Disney would heartily "
                                 "approve of this new film."),
            (Texts{"This is a film worthy of Walt Disney, himself.", "I think Mr. Disney would heartily approve of this new film."}));
  // 20news: "... other part of the U.S. Keith Hernandez said it very well." (an inner-period word: no split)
  EXPECT_EQ(split_sentence_texts("Better than in just about any other part of the U.S. Keith Hernandez said it."),
            (Texts{"Better than in just about any other part of the U.S. Keith Hernandez said it."}));
  // 20news: "4. Other leagues (e.g. Europe, Canada Cup tournament)"
  EXPECT_EQ(split_sentence_texts("Other leagues (e.g. Europe, Canada Cup tournament) count. J. R. R. Tolkien wrote."),
            (Texts{"Other leagues (e.g. Europe, Canada Cup tournament) count.", "J. R. R. Tolkien wrote."}));
  // IMDB: "... finding new life thru new love.The acting here is good ..." (run together, no space)
  EXPECT_EQ(split_sentence_texts("Finding new love.The acting is good. A bad dream.A cosmic bore. Alfred E.Green's "
                                 "film. The box holds Azar.FBI agents come. I love it...Michael is a genius"),
            (Texts{"Finding new love.", "The acting is good.", "A bad dream.", "A cosmic bore.", "Alfred E.Green's film.",
                   "The box holds Azar.FBI agents come.", "I love it...", "Michael is a genius"}));
  EXPECT_EQ(split_sentence_texts("Finding new love.The acting is good.", false), (Texts{"Finding new love.The acting is good."}));
  EXPECT_EQ(split_sentence_texts("It costs 9.50 at imdb.com now. Dr. Who is on."),
            (Texts{"It costs 9.50 at imdb.com now.", "Dr. Who is on."}));
}

// issue 29: users and students type in lower case; with the capital-letter rule a lower-case review is one sentence
// (HAN's sentence attention then trivially 1). The lower-case rule is a model's recorded option (split_lower_case).
TEST(SentenceSplitter, LowerCaseSentencesSplitWithTheOption) {
  auto lc = [](const std::string& t) { return split_sentence_texts(t, true, true); };
  EXPECT_EQ(lc("i loved it. it was great! would watch again?"), (Texts{"i loved it.", "it was great!", "would watch again?"}));
  SentenceSplitOptions on;
  on.lower_case_starts = true;
  const SplitDocument d = split_document("i loved it. it was great! would watch again?", on);
  ASSERT_EQ(d.sentences.size(), 3u);
  EXPECT_EQ(d.sentences[1], (std::vector<std::string>{"it", "was", "great", "!"}));
  EXPECT_TRUE(d.notes.empty());
  EXPECT_EQ(lc("what?! no way. i said no. it was bad"), (Texts{"what?!", "no way.", "i said no.", "it was bad"}));
  EXPECT_EQ(lc("plan b. it failed. ok"), (Texts{"plan b.", "it failed.", "ok"}));
  // What keeps a lower-case start in the sentence: abbreviations, initials, inner periods, numbers, ellipses,
  // closing quotes and brackets.
  EXPECT_EQ(lc("i met mr. smith and dr. jones vs. the rest, e.g. the u.s. team. then we left"),
            (Texts{"i met mr. smith and dr. jones vs. the rest, e.g. the u.s. team.", "then we left"}));
  EXPECT_EQ(lc("smith et al. found it in fig. 3 and cf. the notes. J. R. R. tolkien wrote it. ok"),
            (Texts{"smith et al. found it in fig. 3 and cf. the notes.", "J. R. R. tolkien wrote it.", "ok"}));
  EXPECT_EQ(lc("it costs 9.50 at imdb.com now. good"), (Texts{"it costs 9.50 at imdb.com now.", "good"}));
  EXPECT_EQ(lc("well... maybe not. \"great!\" he said. (see below.) it ends"),
            (Texts{"well... maybe not.", "\"great!\" he said.", "(see below.) it ends"}));
  EXPECT_EQ(lc("so\xE2\x80\xA6 not sure. fine"), (Texts{"so\xE2\x80\xA6 not sure.", "fine"}));
  // Capitalised text splits the same under both rules.
  const std::string capital = "I met Mr. Smith. He said no. 5 is fine. J. R. R. Tolkien wrote it.";
  EXPECT_EQ(lc(capital), split_sentence_texts(capital));
}

// Off (the shipped models' rule): a lower-case start continues the sentence, and the document says so.
TEST(SentenceSplitter, CapitalRuleSaysWhatItDidNotSplit) {
  EXPECT_EQ(split_sentence_texts("i loved it. it was great! would watch again?"),
            (Texts{"i loved it. it was great! would watch again?"}));
  const SplitDocument d = split_document("i loved it. it was great! would watch again?");
  ASSERT_EQ(d.sentences.size(), 1u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].rfind("2 sentence(s) starting in lower case", 0), 0u) << d.notes[0];
  EXPECT_NE(d.notes[0].find("--split-lower-case"), std::string::npos);
  // Negative control: capitalised sentences give no such note.
  EXPECT_TRUE(split_document("I loved it. It was great!").notes.empty());
}

TEST(SentenceSplitter, Ellipses) {
  // IMDB: "Framing story: Adam West is... well, himself. He doesn't go th..."
  EXPECT_EQ(split_sentence_texts("Framing story: Adam West is... well, himself. He doesn't go there."),
            (Texts{"Framing story: Adam West is... well, himself.", "He doesn't go there."}));
  // IMDB: "... she lost her temper... This one was almost too good to be true."
  EXPECT_EQ(split_sentence_texts("She lost her temper... This one was almost too good."),
            (Texts{"She lost her temper...", "This one was almost too good."}));
  EXPECT_EQ(split_sentence_texts("Wait\xE2\x80\xA6 What?! No way."), (Texts{"Wait\xE2\x80\xA6", "What?!", "No way."}));
}

TEST(SentenceSplitter, Quotes) {
  // IMDB: '... sprinkled with salt!" My favorite movie of all time ...'
  EXPECT_EQ(split_sentence_texts("And the ground sprinkled with salt!\" My favorite movie of all time."),
            (Texts{"And the ground sprinkled with salt!\"", "My favorite movie of all time."}));
  EXPECT_EQ(split_sentence_texts("\"Great!\" he said. \"Really?\" She left."),
            (Texts{"\"Great!\" he said.", "\"Really?\"", "She left."}));
  EXPECT_EQ(split_sentence_texts("It ends here. \"Then it goes on.\""), (Texts{"It ends here.", "\"Then it goes on.\""}));
}

TEST(SentenceSplitter, MarkupAndLines) {
  // IMDB: "... segment.<br /><br />Framing story: ..." — <br /> is a hard break even without a period.
  EXPECT_EQ(split_sentence_texts("The best segment.<br /><br />Framing story<br/>next<BR>last"),
            (Texts{"The best segment.", "Framing story", "next", "last"}));
  EXPECT_EQ(split_sentence_texts("An <i>odd</i> film. <grin> Fine."), (Texts{"An  odd  film.", "<grin> Fine."}));
  EXPECT_EQ(split_sentence_texts("wrapped mail\nline goes on\n\nnew paragraph\r\n\r\nthird"),
            (Texts{"wrapped mail line goes on", "new paragraph", "third"}));
  const SplitDocument d = split_document("Good.<br /><br />Bad.");
  ASSERT_EQ(d.sentences.size(), 2u);
  EXPECT_EQ(d.sentences[0], (std::vector<std::string>{"good", "."}));
}

TEST(SentenceSplitter, BadInput) {
  // Empty, whitespace, empty lines, markup only: no sentences, no crash.
  for (const char* s : {"", "   ", "\n\n\n", "<br /><br />", "\r\n\r\n<p></p>"}) {
    const SplitDocument d = split_document(s);
    EXPECT_TRUE(d.sentences.empty()) << s;
    EXPECT_FALSE(d.truncated);
  }
  // One-token sentences stay; punctuation-only ones join the previous sentence.
  SplitDocument d = split_document("Wow. Great. ... !");
  ASSERT_EQ(d.sentences.size(), 2u);
  EXPECT_EQ(d.sentences[0], (std::vector<std::string>{"wow", "."}));
  EXPECT_EQ(d.sentences[1], (std::vector<std::string>{"great", ".", "...", "!"}));
  d = split_document("Yes");
  ASSERT_EQ(d.sentences.size(), 1u);
  EXPECT_EQ(d.sentences[0].size(), 1u);
  // No boundary at all: cut into pieces of max_sentence_tokens, stated in notes.
  std::string run;
  for (int i = 0; i < 250; ++i) run += "word ";
  SentenceSplitOptions o;
  o.max_sentence_tokens = 100;
  d = split_document(run, o);
  ASSERT_EQ(d.sentences.size(), 3u);
  EXPECT_EQ(d.sentences[2].size(), 50u);
  EXPECT_FALSE(d.truncated);
  ASSERT_GE(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0], "no sentence boundary found");
  // 10,000 sentences: the first max_sentences kept, the cut stated.
  std::string many;
  for (int i = 0; i < 10000; ++i) many += "Sentence " + std::to_string(i) + " here. ";
  o.max_sentences = 100;
  d = split_document(many, o);
  EXPECT_EQ(d.sentences.size(), 100u);
  EXPECT_EQ(d.num_sentences_total, 10000);
  EXPECT_TRUE(d.truncated);
  ASSERT_FALSE(d.notes.empty());
  EXPECT_NE(d.notes.back().find("first 100 of 10000 sentences"), std::string::npos) << d.notes.back();
  // A total token cap.
  o.max_tokens = 10;
  d = split_document(many, o);
  int kept = 0;
  for (const auto& s : d.sentences) kept += static_cast<int>(s.size());
  EXPECT_EQ(kept, 10);
  EXPECT_TRUE(d.truncated);
  // Hostile bytes.
  d = split_document(std::string("\xff\xfe<br\x00 />. . .!?<<<>>>\xe2\x80", 22));
  SUCCEED();
}

std::string read_data(const std::string& rel) {
  std::ifstream in(std::string(ATTNLAB_DATA_DIR) + "/" + rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every text of a TSV (the raw second column).
std::vector<std::string> raw_texts(const std::string& content, size_t limit) {
  std::vector<std::string> out;
  std::istringstream in(content);
  std::string line;
  while (std::getline(in, line) && out.size() < limit) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) out.push_back(line.substr(tab + 1));
  }
  return out;
}

TEST(SentenceSplitter, RealImdbAnd20news) {
  const std::string imdb = read_data("imdb/train.tsv"), news = read_data("20news_hockey_baseball/train.tsv");
  if (imdb.empty() || news.empty()) GTEST_SKIP() << "../shared/data missing";
  size_t docs = 0, sentences = 0, br_docs = 0, multi = 0;
  for (const std::string& text : raw_texts(imdb, 1000)) {
    ++docs;
    const SplitDocument d = split_document(text, {1000, 1000, 0});
    sentences += d.sentences.size();
    multi += d.sentences.size() > 1;
    size_t brs = 0;
    for (size_t p = text.find("<br />"); p != std::string::npos; p = text.find("<br />", p + 1)) ++brs;
    br_docs += brs > 0;
    int tokens = 0;
    for (const auto& s : d.sentences) {
      ASSERT_FALSE(s.empty());
      tokens += static_cast<int>(s.size());
      for (const std::string& t : s) ASSERT_TRUE(t.find("<br") == std::string::npos && t != "\\/>") << text;
    }
    // Splitting loses no words: the letters and digits of all tokens, in order, equal those of the whole text
    // tokenised with its markup replaced (token boundaries may differ at sentence ends: "love.The").
    std::string plain = text;
    for (size_t p = plain.find("<br />"); p != std::string::npos; p = plain.find("<br />", p)) plain.replace(p, 6, " ");
    std::vector<TextExample> ex;
    std::string err;
    ASSERT_TRUE(parse_labeled_tsv("0\t" + plain + "\n", &ex, &err));
    auto alnum = [](const std::vector<std::vector<std::string>>& sents) {
      std::string out;
      for (const auto& s : sents)
        for (const std::string& t : s)
          for (char c : t)
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out.push_back(c);
      return out;
    };
    ASSERT_EQ(alnum(d.sentences), alnum({ex[0].tokens})) << text;
    (void)tokens;
  }
  EXPECT_EQ(docs, 1000u);
  EXPECT_GT(multi, 990u);  // IMDB reviews have several sentences
  EXPECT_GT(double(sentences) / docs, 8.0);
  EXPECT_GT(br_docs, 400u);
  size_t news_sentences = 0;
  for (const std::string& text : raw_texts(news, 300)) news_sentences += split_document(text).sentences.size();
  EXPECT_GT(news_sentences, 300u * 5);
}

}  // namespace
}  // namespace attnlab
